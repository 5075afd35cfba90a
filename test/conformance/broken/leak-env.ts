// Broken: runs with --trust-host-env and turns every session/open's env policy into
// inheritAll, so agents see the sidecar's whole environment. Caught by R-ENV-1 (and R-ENV-3).
import { runProxy } from "./proxy.js";

runProxy({
  extraArgs: ["--trust-host-env"],
  fromHost: (m) => {
    const env = m.method === "session/open" ? m.params?.spec?.command?.env : undefined;
    if (!env) return;
    const policy = { policy: "inheritAll", ...(env.set ? { set: env.set } : {}) };
    return { ...m, params: { ...m.params, spec: { ...m.params.spec, command: { ...m.params.spec.command, env: policy } } } };
  },
});
