// opencode against the real `opencode run --format json` (opencode-ai, pinned in test/agents).
import { realSuite } from "./helpers/real.js";

realSuite({
  agent: "opencode",
  driver: "opencode",
  npmPackage: "opencode-ai",
  thoughts: true,
  errorCode: "agent_failed",
  asks: false,
  refused: { permission: "acceptEdits" },
  modelOption: (run) => `mock/${run.model}`,
  modelSeen: (mock, model) => mock.mainRequests().some((r) => r.body?.model === model),
});
