// Broken: session/open by catalog id answers without the resolved spec. Caught by R-AGENT-1.
import { runProxy } from "./proxy.js";

const agentOpens = new Set<string>();
runProxy({
  fromHost: (m) => {
    if (m.method === "session/open" && "id" in m && m.params?.agent) agentOpens.add(JSON.stringify(m.id));
  },
  fromSidecar: (m) => {
    if (!("id" in m) || !agentOpens.delete(JSON.stringify(m.id)) || !m.result) return;
    const { spec: _spec, ...rest } = m.result;
    return { ...m, result: rest };
  },
});
