// Broken: numbers session/event seq across all sessions (one counter), so each session's
// seq has gaps. Caught by R-SEQ-1.
import { runProxy } from "./proxy.js";

let n = 0;
runProxy({
  fromSidecar: (m) => (m.method === "session/event" && m.params ? { ...m, params: { ...m.params, seq: ++n } } : undefined),
});
