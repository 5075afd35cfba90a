// Broken: session/close answers zero counts whatever the cleanup ended. Caught by R-SUP-6.
import { runProxy } from "./proxy.js";

const closes = new Set<string>();
runProxy({
  fromHost: (m) => {
    if (m.method === "session/close" && "id" in m) closes.add(JSON.stringify(m.id));
  },
  fromSidecar: (m) => {
    if (!("id" in m) || !closes.delete(JSON.stringify(m.id)) || !m.result) return;
    return { ...m, result: { processes: { ended: 0, killed: 0 } } };
  },
});
