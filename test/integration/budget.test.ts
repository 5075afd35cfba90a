// R-BUDGET-1 through a real `a4aa serve` and the fake ACP agent: a turn that passes
// options.budget is cancelled as session/cancel does and fails budget_exceeded naming the
// budget; a spent session refuses further prompts; usage reported only at the turn's end
// lets that turn finish and refuses the next one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeAgentSpec, sidecarSetup, waitNoProcesses } from "../helpers/sidecar.js";

const setup = sidecarSetup();

test("R-BUDGET-1: maxTurnMs cancels a long turn (budget_exceeded, data.budget names it); the next turn runs", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker), { options: { budget: { maxTurnMs: 300 } } });
  const t0 = Date.now();
  const r = await s.call("session/prompt", { sessionId: sid, text: "slow:100" });
  const d = r.error?.data;
  assert.equal(d?.code, "budget_exceeded", JSON.stringify(r));
  assert.equal(d.budget.name, "maxTurnMs");
  assert.equal(d.budget.limit, 300);
  assert.ok(d.budget.reached >= 300, `reached ${d.budget.reached}`);
  assert.equal(d.retryable, false);
  assert.match(d.detail, /maxTurnMs is 300/);
  assert.ok(Date.now() - t0 < 4000, "cancelled, not run to its 5 s end");
  assert.ok(s.events(sid).filter((e) => e.type === "messageChunk").length < 100, "the agent was stopped");
  // The limit is per turn: a short turn afterwards runs.
  assert.equal((await s.ok("session/prompt", { sessionId: sid, text: "text:quick" })).text, "quick");
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-BUDGET-1: maxCostUsd passed by a usage report during the turn cancels it; the spent session refuses the next prompt", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker), { options: { budget: { maxCostUsd: 0.1 } } });
  const r = await s.call("session/prompt", { sessionId: sid, text: "usage;slow:100" });
  const d = r.error?.data;
  assert.equal(d?.code, "budget_exceeded", JSON.stringify(r));
  assert.deepEqual(d.budget, { name: "maxCostUsd", limit: 0.1, reached: 0.25 });
  assert.equal(d.uncertainEffect, true, "the agent ran before the overrun");
  const again = await s.call("session/prompt", { sessionId: sid, text: "text:more" });
  assert.equal(again.error?.data.code, "budget_exceeded");
  assert.match(again.error!.data.detail, /budget is spent .*open a new session/);
  assert.equal(again.error!.data.uncertainEffect, false, "refused before the agent saw it");
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-BUDGET-1: tokens reported only at the turn's end: that turn finishes, the next prompt is refused (maxTokens, the figure reached)", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker), { options: { budget: { maxTokens: 100 } } });
  const first = await s.ok("session/prompt", { sessionId: sid, text: "usage;text:done" });
  assert.equal(first.stopReason, "endTurn");
  assert.equal(first.usage.totalTokens, 120);
  const r = await s.call("session/prompt", { sessionId: sid, text: "text:more" });
  assert.equal(r.error?.data.code, "budget_exceeded");
  assert.deepEqual(r.error!.data.budget, { name: "maxTokens", limit: 100, reached: 120 });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-BUDGET-1: a budget outside the schema (maxTurnMs 0, an unknown field) is invalid_params before anything starts", async () => {
  const { s, marker } = setup();
  for (const budget of [{ maxTurnMs: 0 }, { maxTurns: 3 }]) {
    const r = await s.call("session/open", { spec: fakeAgentSpec(marker), options: { budget } });
    assert.equal(r.error?.data.code, "invalid_params", JSON.stringify(r));
  }
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-USAGE-1: an ACP agent's model API refusal through the sidecar is typed: rate_limited with retryAfterMs, overloaded, quota_exhausted", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const cases: [string, string, boolean, number | undefined][] = [
    ["API Error: 429 rate_limit_error, please try again in 2s", "rate_limited", true, 2000],
    ["API Error: 529 overloaded_error: Overloaded", "overloaded", true, undefined],
    ["insufficient_quota: You exceeded your current quota", "quota_exhausted", false, undefined],
  ];
  for (const [text, code, retryable, after] of cases) {
    const r = await s.call("session/prompt", { sessionId: sid, text: `fail:${text}` });
    const d = r.error?.data;
    assert.equal(d?.code, code, JSON.stringify(r));
    assert.equal(d.retryable, retryable);
    assert.equal(d.retryAfterMs, after);
    assert.match(d.detail, new RegExp(text.slice(0, 12)));
  }
  assert.equal((await s.ok("session/prompt", { sessionId: sid, text: "text:still here" })).text, "still here", "the session goes on");
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});
