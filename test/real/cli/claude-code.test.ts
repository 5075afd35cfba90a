// claudeCode against the real `claude` (@anthropic-ai/claude-code, pinned in test/agents).
import { realSuite } from "./helpers/real.js";

realSuite({
  agent: "claude",
  driver: "claudeCode",
  npmPackage: "@anthropic-ai/claude-code",
  thoughts: true,
  errorCode: "agent_failed",
  asks: true,
  refused: { effort: "minimal" },
  modelSeen: (mock, model) => mock.mainRequests().some((r) => r.body?.model === model),
});
