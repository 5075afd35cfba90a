// codex against the real `codex exec --json` (@openai/codex, pinned in test/agents).
import { realSuite } from "./helpers/real.js";

realSuite({
  agent: "codex",
  driver: "codex",
  npmPackage: "@openai/codex",
  thoughts: true,
  errorCode: "agent_failed",
  asks: false,
  refused: { mode: "plan" },
  modelSeen: (mock, model) => mock.mainRequests().some((r) => r.body?.model === model),
});
