// Broken: checks the token but puts every connection in the first tenant, so one tenant
// sees and touches another's sessions. Caught by R-REMOTE-3.
import { runWsProxy } from "./ws-proxy.js";

void runWsProxy({
  upstreamHeaders: (h, tokens) => {
    const given = /^Bearer (.+)$/.exec(h.authorization ?? "")?.[1];
    const authorization = given !== undefined && tokens.includes(given) ? `Bearer ${tokens[0]}` : (h.authorization ?? "");
    return { ...(authorization ? { authorization } : {}), ...(h.origin ? { origin: h.origin } : {}) };
  },
});
