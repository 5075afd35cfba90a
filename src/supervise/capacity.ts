// The bound on agent processes per sidecar (`a4aa serve --max-agent-processes`): every
// process tree a4aa starts for agents — own and shared agent processes (prewarm included),
// CLI turns, PTY sessions, terminals — counts from its start until its stop ladder has
// ended it. Beyond the bound a start is refused `at_capacity` (retryable) before anything
// is spawned, so a host or an agent asking for thousands gets an error, not a fork bomb.
import { errors, type A4aaError } from "../errors.js";
import type { ErrorStage } from "../../generated/ts/types.js";
import { liveProcessCount } from "./supervised-process.js";

/** The schema's ServeLimits.maxAgentProcesses `default`. */
export const DEFAULT_MAX_AGENT_PROCESSES = 256;

let max = DEFAULT_MAX_AGENT_PROCESSES;
/** Starts under way (not yet counted by liveProcessCount). */
let starting = 0;

export function setMaxAgentProcesses(n: number): void {
  max = n;
}

export function maxAgentProcesses(): number {
  return max;
}

/** Agent process trees running or starting now. */
export function agentProcessesInUse(): number {
  return liveProcessCount() + starting;
}

/** Refuses (at_capacity) when `n` more would go over the bound. */
export function checkRoom(n: number, stage: ErrorStage, what = "an agent process"): void {
  const used = agentProcessesInUse();
  if (used + n <= max) return;
  throw errors.atCapacity(
    stage,
    `${what} would take this sidecar over its bound of ${max} agent processes (--max-agent-processes; ${used} running or starting): close sessions or wait for idle shared processes to end, then retry`,
    { retryable: true },
  );
}

/** Runs `start` with room for one process reserved; refused at_capacity when there is none. */
export async function withRoom<T>(start: () => Promise<T>): Promise<T> {
  checkRoom(1, "spawn");
  starting++;
  try {
    return await start();
  } finally {
    starting--;
  }
}
