// Broken: applies a notification-form session/cancel (turns it into a request and hides
// the answer). Caught by R-CANCEL-2.
import { runProxy } from "./proxy.js";

let n = 0;
const swallow = new Set<string>();
runProxy({
  fromHost: (m) => {
    if (m.method !== "session/cancel" || "id" in m) return;
    const id = `broken-cancel-${++n}`;
    swallow.add(id);
    return { ...m, id };
  },
  fromSidecar: (m) => (typeof m.id === "string" && swallow.delete(m.id) ? false : undefined),
});
