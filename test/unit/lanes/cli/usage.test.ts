// Usage arithmetic shared by the CLI drivers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anthropicUsage, diffUsage } from "../../../../src/lanes/cli/usage.js";

describe("cli lane: usage", () => {
  it("Anthropic usage counts cache reads and writes as input", () => {
    assert.deepEqual(anthropicUsage({ input_tokens: 10, cache_read_input_tokens: 30, cache_creation_input_tokens: 5, output_tokens: 7 }, 0.5), {
      inputTokens: 45,
      outputTokens: 7,
      cachedInputTokens: 30,
      totalTokens: 52,
      costUsd: 0.5,
    });
  });
  it("a turn's own usage from running totals", () => {
    assert.deepEqual(diffUsage({ inputTokens: 300, outputTokens: 20, contextWindowTokens: 1000 }, { inputTokens: 120, outputTokens: 8 }), {
      inputTokens: 180,
      outputTokens: 12,
      contextWindowTokens: 1000,
    });
    assert.deepEqual(diffUsage({ inputTokens: 5 }, undefined), { inputTokens: 5 });
  });
});
