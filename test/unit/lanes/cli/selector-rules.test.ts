// The selector check every CLI driver runs, against the drivers' own rules.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { claudeRules } from "../../../../src/lanes/cli/drivers/claude-code.js";
import { codexRules } from "../../../../src/lanes/cli/drivers/codex.js";
import { genericRules } from "../../../../src/lanes/cli/drivers/generic.js";
import { checkSelectors, type SelectorRules } from "../../../../src/lanes/cli/selector-rules.js";

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
