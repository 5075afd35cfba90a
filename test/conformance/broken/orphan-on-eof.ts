// Broken: on stdin EOF the sidecar is SIGKILLed, so its agents and their children are
// orphaned and pending prompts are never answered; exits 0 as if all went well.
// Caught by R-EOF-1 (and R-SUP-1).
import { runProxy } from "./proxy.js";

runProxy({
  onHostEof: (api) => {
    api.child.kill("SIGKILL");
    api.child.once("exit", () => process.exit(0));
  },
});
