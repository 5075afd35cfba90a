import { test } from "node:test";
import assert from "node:assert/strict";
import { offered, selectorCall, markCurrent } from "../../../../src/lanes/acp/selectors.js";
import type { SessionState } from "../../../../generated/ts/types.js";

const state = (): SessionState => ({
  modes: { currentModeId: "ask", availableModes: [{ id: "ask" }, { id: "code" }] },
  models: { currentModelId: "m1", availableModels: [{ modelId: "m1" }, { modelId: "m2" }] },
  configOptions: [
    { id: "mdl", category: "model", type: "select", currentValue: "a", options: [{ value: "a", name: "A" }, { group: "g", name: "G", options: [{ value: "b", name: "B" }] }] },
    { id: "think", category: "thought_level", type: "select", currentValue: "low", options: [{ value: "low", name: "" }, { value: "high", name: "" }] },
  ],
});

test("config options win over legacy models; groups are flattened", () => {
  assert.deepEqual(offered(state(), "model"), ["a", "b"]);
  assert.deepEqual(selectorCall(state(), "n", "model", "b"), { method: "session/set_config_option", params: { sessionId: "n", configId: "mdl", value: "b" } });
});

test("modes go through session/set_mode when no mode config option exists", () => {
  assert.deepEqual(selectorCall(state(), "n", "mode", "code"), { method: "session/set_mode", params: { sessionId: "n", modeId: "code" } });
  assert.equal(selectorCall(state(), "n", "mode", "ask"), null);
});

test("legacy models use session/set_model", () => {
  const s = state();
  delete s.configOptions;
  assert.deepEqual(selectorCall(s, "n", "model", "m2"), { method: "session/set_model", params: { sessionId: "n", modelId: "m2" } });
});

test("a value the agent did not offer is refused with what it offers", () => {
  assert.match(selectorCall(state(), "n", "effort", "xhigh") as string, /does not offer effort "xhigh" \(it offers "low", "high"\)/);
  assert.match(selectorCall({}, "n", "effort", "low") as string, /offers no effort selector/);
});

test("markCurrent makes a later call a no-op", () => {
  const s = state();
  markCurrent(s, "effort", "high");
  assert.equal(selectorCall(s, "n", "effort", "high"), null);
});

test("a host reads the offered values and the current one exactly as the lane does (the client's session-state helpers)", async () => {
  const client = await import("../../../../clients/ts/index.js");
  const s = state();
  // A mode config option wins over `modes`; a boolean option of the same category is not a selector.
  s.configOptions!.push({ id: "flag", category: "mode", type: "boolean", currentValue: true });
  s.configOptions!.push({ id: "mode", category: "mode", type: "select", currentValue: "plan", options: [{ group: "g", name: "G", options: [{ value: "plan", name: "Plan" }] }] });
  for (const kind of ["mode", "model", "effort"] as const) assert.deepEqual(client.offeredValues(s, kind), offered(s, kind), kind);
  assert.deepEqual(client.offeredValues(s, "mode"), ["plan"]);
  assert.equal(client.currentSelectorValue(s, "mode"), "plan");
  assert.equal(client.currentSelectorValue(s, "model"), "a");
  assert.equal(client.currentSelectorValue(s, "effort"), "low");
  markCurrent(s, "effort", "high");
  assert.equal(client.currentSelectorValue(s, "effort"), "high");
});
