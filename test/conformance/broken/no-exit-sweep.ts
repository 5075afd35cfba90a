// Broken: when an agent's main process exits, what is left of its group waits for a close.
// Caught by R-SUP-3.
import { real, runInProcess } from "./in-process.js";

await runInProcess(async () => {
  const { SupervisedProcess } = await real<typeof import("../../../src/supervise/supervised-process.js")>("supervise/supervised-process.js");
  (SupervisedProcess.prototype as unknown as { leaderExited: () => Promise<void> }).leaderExited = () => Promise.resolve();
});
