export interface SuiteContext {
  quick: boolean;
  /** --real: also measure the real agents of test/agents against their mocks. */
  real?: boolean;
  log: (line: string) => void;
}
