// Broken: a turn whose agent is gone is never answered (as a lane that ignores stdout EOF
// hangs). Caught by R-HOSTILE-5.
import { runProxy } from "./proxy.js";

runProxy({
  fromSidecar: (m) => (m.method === undefined && m.error?.data?.code === "agent_exited" ? false : undefined),
});
