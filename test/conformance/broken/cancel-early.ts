// Broken: answers session/cancel with {} at once and never delivers it. Caught by R-CANCEL-1.
import { runProxy } from "./proxy.js";

runProxy({
  fromHost: (m, api) => {
    if (m.method !== "session/cancel" || !("id" in m)) return;
    api.toHost({ jsonrpc: "2.0", id: m.id, result: {} });
    return false;
  },
});
