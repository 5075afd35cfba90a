// Broken: never tells the other attached connections how a permission request was
// settled (drops permission/settled). Caught by R-REMOTE-5.
import { runWsProxy } from "./ws-proxy.js";

void runWsProxy({ fromSidecar: (m) => (m.method === "permission/settled" ? false : undefined) });
