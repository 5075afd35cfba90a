// Broken: sessions belong to the connection: when it ends, every session it opened or
// attached is closed. Caught by R-REMOTE-3.
import { runWsProxy } from "./ws-proxy.js";

void runWsProxy({
  fromHost: (m, api) => {
    if (m.method === "session/open" || m.method === "session/attach") (api.state.asks ??= new Set()).add(JSON.stringify(m.id));
  },
  fromSidecar: (m, api) => {
    if ("id" in m && api.state.asks?.has(JSON.stringify(m.id)) && m.result?.sessionId) (api.state.sessions ??= new Set()).add(m.result.sessionId);
    const done = typeof m.id === "string" && m.id.startsWith("broken-close-") ? api.state.closing?.get(m.id) : undefined;
    if (done) {
      done();
      return false;
    }
  },
  onHostGone: async (api) => {
    const closing = (api.state.closing = new Map<string, () => void>());
    const all = [...(api.state.sessions ?? [])].map(
      (sessionId, i) =>
        new Promise<void>((resolve) => {
          const id = `broken-close-${i}`;
          closing.set(id, resolve);
          api.toSidecar({ jsonrpc: "2.0", id, method: "session/close", params: { sessionId } });
          setTimeout(resolve, 10_000);
        }),
    );
    await Promise.all(all);
  },
});
