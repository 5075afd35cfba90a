// Broken: ignores operationId (strips it), so a retried open or prompt runs twice.
// Caught by R-REMOTE-6.
import { runWsProxy } from "./ws-proxy.js";

void runWsProxy({
  fromHost: (m) => {
    if ((m.method === "session/open" || m.method === "session/prompt") && m.params?.operationId !== undefined) {
      const { operationId: _drop, ...params } = m.params;
      return { ...m, params };
    }
  },
});
