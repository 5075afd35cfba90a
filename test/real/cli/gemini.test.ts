// gemini against the real `gemini -o stream-json` (@google/gemini-cli, pinned in test/agents).
import { realSuite } from "./helpers/real.js";

realSuite({
  agent: "gemini",
  driver: "gemini",
  npmPackage: "@google/gemini-cli",
  // An explicit model skips the model router's extra requests.
  options: (run) => ({ model: run.model }),
  // Gemini offers its shell tool headless only in yolo mode.
  toolOptions: { permission: "bypass" },
  thoughts: false,
  errorCode: "agent_failed",
  asks: false,
  refused: { effort: "high" },
  modelSeen: (mock, model) => mock.mainRequests().some((r) => r.path.includes(`/models/${model}:`)),
});
