// Broken: answers session/close (zero counts) at once, before the turn has settled and the process
// tree is cleaned up (the real close still runs afterwards). Caught by R-CLOSE-1.
import { runProxy } from "./proxy.js";

let n = 0;
const swallow = new Set<string>();
runProxy({
  fromHost: (m, api) => {
    if (m.method !== "session/close" || !("id" in m)) return;
    api.toHost({ jsonrpc: "2.0", id: m.id, result: { processes: { ended: 0, killed: 0 } } });
    const id = `broken-close-${++n}`;
    swallow.add(id);
    return { ...m, id };
  },
  fromSidecar: (m) => (typeof m.id === "string" && swallow.delete(m.id) ? false : undefined),
});
