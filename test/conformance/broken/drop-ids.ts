// Broken: keeps only scalar request ids — responses to object and array ids go out with
// id null. Caught by R-FRAME-4.
import { runProxy } from "./proxy.js";

runProxy({
  fromSidecar: (m) => (m.method === undefined && m.id !== null && typeof m.id === "object" ? { ...m, id: null } : undefined),
});
