// The real-CLI suites' configuration, one per driver (see cli-suite.ts).
import type { RealConfig } from "./cli-suite.js";

export const CONFIGS: Record<string, RealConfig> = {
  // claudeCode against the real `claude` (@anthropic-ai/claude-code, pinned in test/agents).
  claudeCode: {
    agent: "claude",
    driver: "claudeCode",
    usageKeys: ["inputTokens", "outputTokens", "cachedInputTokens", "totalTokens", "costUsd"],
    npmPackage: "@anthropic-ai/claude-code",
    thoughts: true,
    errorCode: "agent_failed",
    asks: true,
    refused: { effort: "minimal" },
    modelSeen: (mock, model) =>
      mock.mainRequests().some((r) => r.body?.model === model),
  },
  // qwen against the real `qwen` (@qwen-code/qwen-code, pinned in test/agents).
  qwen: {
    agent: "qwen",
    driver: "qwen",
    usageKeys: ["inputTokens", "outputTokens", "cachedInputTokens", "totalTokens"],
    npmPackage: "@qwen-code/qwen-code",
    thoughts: true,
    errorCode: "agent_failed",
    asks: true,
    refused: { effort: "high" },
    modelSeen: (mock, model) =>
      mock.mainRequests().some((r) => r.body?.model === model),
  },
  // codex against the real `codex exec --json` (@openai/codex, pinned in test/agents).
  codex: {
    agent: "codex",
    driver: "codex",
    usageKeys: ["inputTokens", "outputTokens", "cachedInputTokens", "reasoningTokens", "totalTokens"],
    npmPackage: "@openai/codex",
    thoughts: true,
    errorCode: "agent_failed",
    asks: false,
    refused: { mode: "plan" },
    modelSeen: (mock, model) =>
      mock.mainRequests().some((r) => r.body?.model === model),
  },
  // gemini against the real `gemini -o stream-json` (@google/gemini-cli, pinned in test/agents).
  gemini: {
    agent: "gemini",
    driver: "gemini",
    usageKeys: ["inputTokens", "outputTokens", "cachedInputTokens", "totalTokens"],
    npmPackage: "@google/gemini-cli",
    // An explicit model skips the model router's extra requests.
    options: (run) => ({ model: run.model }),
    // Gemini offers its shell tool headless only in yolo mode.
    toolOptions: { permission: "bypass" },
    thoughts: false,
    errorCode: "agent_failed",
    asks: false,
    refused: { effort: "high" },
    modelSeen: (mock, model) =>
      mock.mainRequests().some((r) => r.path.includes(`/models/${model}:`)),
  },
  // opencode against the real `opencode run --format json` (opencode-ai, pinned in test/agents).
  opencode: {
    agent: "opencode",
    driver: "opencode",
    usageKeys: ["inputTokens", "outputTokens", "cachedInputTokens", "reasoningTokens", "totalTokens", "costUsd"],
    npmPackage: "opencode-ai",
    thoughts: true,
    errorCode: "agent_failed",
    asks: false,
    refused: { permission: "acceptEdits" },
    modelOption: (run) => `mock/${run.model}`,
    modelSeen: (mock, model) =>
      mock.mainRequests().some((r) => r.body?.model === model),
  },
};
