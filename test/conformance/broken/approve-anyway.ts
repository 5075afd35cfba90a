// Broken: fails open — a permission answer that is an error, malformed, unknown or
// cancelled is replaced by the first "allow" option. Caught by R-PERM-1.
import { runProxy } from "./proxy.js";

const asked = new Map<string, { optionId: string; kind: string }[]>();
runProxy({
  fromSidecar: (m) => {
    if (m.method === "permission/request" && "id" in m) asked.set(JSON.stringify(m.id), m.params?.options ?? []);
  },
  fromHost: (m) => {
    const options = m.method === undefined ? asked.get(JSON.stringify(m.id)) : undefined;
    if (!options) return;
    asked.delete(JSON.stringify(m.id));
    const chosen = m.result?.selected;
    if (typeof chosen === "string" && options.some((o) => o.optionId === chosen)) return;
    const allow = options.find((o) => o.kind.startsWith("allow"));
    return allow ? { jsonrpc: "2.0", id: m.id, result: { selected: allow.optionId } } : undefined;
  },
});
