// Broken: no guard process: a SIGKILLed sidecar's agents are orphaned (an agent that
// ignores stdin EOF and SIGTERM runs on). Caught by R-SUP-4.
import { real, runInProcess } from "./in-process.js";

await runInProcess(async () => {
  const { SidecarGuard } = await real<typeof import("../../../src/supervise/guard.js")>("supervise/guard.js");
  SidecarGuard.prototype.watch = () => undefined;
  // Spawns no longer start the guard through armed() either (it would end agents by their cookie).
  SidecarGuard.prototype.armed = () => null;
});
