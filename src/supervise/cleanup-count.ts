// How many processes a cleanup ended (R-SUP-6), without every lane passing numbers up:
// the session runs its close inside `countCleanup`, and every stop ladder asked for during
// it (the agent, its terminals, a CLI turn) adds its counts once.
import { AsyncLocalStorage } from "node:async_hooks";
import type { ProcessCounts } from "../../generated/ts/types.js";

export type { ProcessCounts };

type Tally = Set<Promise<ProcessCounts>>;
const current = new AsyncLocalStorage<Tally>();

/** Called by the stop ladder's entry: `ladder` counts for the cleanup running now, if any. */
export function noteCleanup(ladder: Promise<ProcessCounts>): void {
  current.getStore()?.add(ladder);
}

export async function countCleanup<T>(fn: () => Promise<T>): Promise<{ value: T; processes: ProcessCounts }> {
  const tally: Tally = new Set();
  const value = await current.run(tally, fn);
  const processes: ProcessCounts = { ended: 0, killed: 0 };
  for (const r of await Promise.all(tally)) {
    processes.ended += r.ended;
    processes.killed += r.killed;
  }
  return { value, processes };
}
