// Broken: waits for the agent's handshake without bound (drops the spec's handshakeTimeoutMs
// and sets a 10-minute serve default). Caught by R-OPEN-2.
import { runProxy } from "./proxy.js";

runProxy({
  extraArgs: ["--handshake-timeout", "600000"],
  fromHost: (m) => {
    if (m.method !== "session/open" || !m.params?.spec) return;
    delete m.params.spec.handshakeTimeoutMs;
    return m;
  },
});
