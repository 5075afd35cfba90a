// Broken: accepts every WebSocket upgrade, token or not (it forwards each with the first
// token of the file). Caught by R-REMOTE-2.
import { runWsProxy } from "./ws-proxy.js";

void runWsProxy({
  upstreamHeaders: (h, tokens) => ({ authorization: `Bearer ${tokens[0]}`, ...(h.origin ? { origin: h.origin } : {}) }),
});
