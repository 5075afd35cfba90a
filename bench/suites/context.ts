export interface SuiteContext {
  quick: boolean;
  log: (line: string) => void;
}
