// §17 (1.3): budgets (R-BUDGET-1), typed model API refusals (R-USAGE-1) and trace context to
// the agent (R-OTEL-2), with the scriptable fake ACP agent.
import assert from "node:assert/strict";
import type { Check } from "../harness/context.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

export const costChecks: Check[] = [
  {
    id: "R-BUDGET-1/turn-and-session",
    covers: ["R-BUDGET-1"],
    title: "maxTurnMs cancels a long turn (budget_exceeded naming it); a cost passed during a turn spends the session, which refuses the next prompt",
    async run(ctx) {
      const h = ctx.start();
      const a = (await h.open(ctx.acp(), { options: { budget: { maxTurnMs: 300 } } })).sessionId;
      const e1 = await h.fail("session/prompt", { sessionId: a, text: "slow:100" }, "budget_exceeded");
      assert.equal(e1.data?.budget?.name, "maxTurnMs");
      assert.equal((await h.api.sessionPrompt({ sessionId: a, text: "text:short" })).stopReason, "endTurn", "the limit is per turn");
      const b = (await h.open(ctx.acp(), { options: { budget: { maxCostUsd: 0.1 } } })).sessionId;
      const e2 = await h.fail("session/prompt", { sessionId: b, text: "usage;slow:100" }, "budget_exceeded");
      assert.equal(e2.data?.budget?.name, "maxCostUsd");
      const e3 = await h.fail("session/prompt", { sessionId: b, text: "text:more" }, "budget_exceeded");
      assert.equal(e3.data?.uncertainEffect, false, "a spent session refuses before the agent sees the prompt");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-USAGE-1/typed-refusals",
    covers: ["R-USAGE-1"],
    title: "a model API's rate limit, overload and exhausted quota fail the turn rate_limited (retryAfterMs when said), overloaded, quota_exhausted; the session goes on",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      const rate = await h.fail("session/prompt", { sessionId: sid, text: "fail:429 Too Many Requests, please try again in 2s" }, "rate_limited");
      assert.equal(rate.data?.retryable, true);
      assert.equal(rate.data?.retryAfterMs, 2000);
      await h.fail("session/prompt", { sessionId: sid, text: "fail:529 overloaded_error" }, "overloaded");
      const quota = await h.fail("session/prompt", { sessionId: sid, text: "fail:insufficient_quota" }, "quota_exhausted");
      assert.equal(quota.data?.retryable, false);
      assert.equal((await h.api.sessionPrompt({ sessionId: sid, text: "text:still here" })).stopReason, "endTurn");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-OTEL-2/acp-meta",
    covers: ["R-OTEL-2"],
    title: "session/prompt's traceparent and tracestate reach an ACP agent in session/prompt _meta; a malformed traceparent is invalid_params",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      const out = await h.api.sessionPrompt({ sessionId: sid, text: "meta", traceparent: `00-${TRACE}-00f067aa0ba902b7-01`, tracestate: "k=v" });
      const meta = JSON.parse(out.text ?? "null") as { traceparent?: string; tracestate?: string } | null;
      assert.ok(meta?.traceparent?.includes(TRACE), `the agent's _meta: ${out.text}`);
      assert.equal(meta?.tracestate, "k=v");
      await h.fail("session/prompt", { sessionId: sid, text: "meta", traceparent: "not-w3c" }, "invalid_params", { unchecked: true });
      assert.equal(await h.end(), 0);
    },
  },
];
