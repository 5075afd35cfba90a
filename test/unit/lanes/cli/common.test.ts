// Selector checks, tool kinds and usage arithmetic shared by the CLI drivers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anthropicUsage, checkSelectors, diffUsage, toolKind, type SelectorRules } from "../../../../src/lanes/cli/common.js";
import { claudeRules } from "../../../../src/lanes/cli/claude-code.js";
import { codexRules } from "../../../../src/lanes/cli/codex.js";
import { genericRules } from "../../../../src/lanes/cli/generic.js";

const refused = (rules: SelectorRules, v: Record<string, unknown>, stage: "open" | "prompt" = "open") => {
  try {
    checkSelectors("x", rules, v, stage);
    return null;
  } catch (e) {
    return (e as { code: string; stage: string }).code + "/" + (e as { stage: string }).stage;
  }
};

describe("cli lane: selectors (R-OPEN-1)", () => {
  it("accepts what the driver maps to flags", () => {
    assert.equal(refused(claudeRules, { model: "opus", effort: "high", mode: "plan", permission: "ask" }), null);
    assert.equal(refused(codexRules, { model: "gpt-5.5", effort: "minimal", permission: "bypass" }), null);
  });
  it("refuses the rest with unsupported_selector at the stage asked", () => {
    assert.equal(refused(claudeRules, { effort: "minimal" }), "unsupported_selector/open");
    assert.equal(refused(codexRules, { permission: "ask" }), "unsupported_selector/open");
    assert.equal(refused(codexRules, { mode: "x" }), "unsupported_selector/open");
    assert.equal(refused(genericRules, { model: "m" }), "unsupported_selector/open");
    assert.equal(refused(claudeRules, { model: "m" }, "prompt"), "unsupported_selector/prompt");
    assert.equal(refused(codexRules, { model: "m", effort: "low" }, "prompt"), null);
  });
});

describe("cli lane: tool kinds", () => {
  const cases: [string, string][] = [
    ["Bash", "execute"],
    ["run_shell_command", "execute"],
    ["shellToolCall", "execute"],
    ["Read", "read"],
    ["readToolCall", "read"],
    ["Edit", "edit"],
    ["write_file", "edit"],
    ["Grep", "search"],
    ["glob", "search"],
    ["WebFetch", "fetch"],
    ["TodoWrite", "think"],
    ["mcp__server__thing", "other"],
  ];
  for (const [name, kind] of cases) it(`${name} → ${kind}`, () => assert.equal(toolKind(name), kind));
});

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
