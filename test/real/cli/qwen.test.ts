// qwen against the real `qwen` (@qwen-code/qwen-code, pinned in test/agents).
import { realSuite } from "./helpers/real.js";

realSuite({
  agent: "qwen",
  driver: "qwen",
  npmPackage: "@qwen-code/qwen-code",
  thoughts: true,
  errorCode: "agent_failed",
  asks: true,
  refused: { effort: "high" },
  modelSeen: (mock, model) => mock.mainRequests().some((r) => r.body?.model === model),
});
