// R-USAGE-1 with a real agent through a4aa serve: its model API's mock refuses (429 with a
// retry-after header, a quota message, 529 overloaded) and the turn fails with the typed code,
// retryable as its name says; what the agent printed is logged so the README can say what each
// agent passes on. Used by test/real/<agent>/*.refusals.test.ts (codex: rpc.refusals.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor, type AgentName } from "../../agents/agents.js";
import { reply, type Reply } from "../../agents/mocks/common.js";
import { TestSidecar, newMarker } from "../../helpers/sidecar.js";
import { teardownRealRig } from "./teardown.js";
import type { AgentSpec } from "../../../generated/ts/types.js";

export interface RefusalCase {
  name: string;
  /** What the mock answers every model request with. */
  reply: Reply;
  code: "rate_limited" | "quota_exhausted" | "overloaded";
  /** What the agent is known to pass on: retryAfterMs asserted equal (undefined: asserted absent). */
  retryAfterMs?: number;
  /** The agent retries for this long first: run only with A4AA_REAL_SLOW=1. */
  slowMs?: number;
}

export interface RefusalAgent {
  agent: AgentName;
  lane: "cli" | "acp";
  driver?: string;
  /** Variables the agent reads (e.g. its retry count), set in its spec's environment. */
  env?: Record<string, string>;
  options?: Record<string, unknown>;
}

export function refusalSuite(a: RefusalAgent, cases: readonly RefusalCase[]): void {
  for (const c of cases) {
    test(`R-USAGE-1: ${a.agent} (${a.lane} lane): ${c.name} fails the turn ${c.code}`, { skip: !agentsInstalled([a.agent]) ? INSTALL_HINT : c.slowMs && !process.env.A4AA_REAL_SLOW ? `the agent retries for ~${Math.round(c.slowMs / 60_000)} min first: A4AA_REAL_SLOW=1 runs it` : false, timeout: 120_000 + (c.slowMs ?? 0) }, async () => {
      const mock = await startMockFor(a.agent, [{ ...c.reply, sticky: true }]);
      const run = prepareAgent(a.agent, mock);
      const marker = newMarker();
      const command = run.command();
      const env = command.env as { policy: "sanitized"; inherit?: string[]; set?: Record<string, string> };
      const spec = {
        id: a.agent,
        lane: a.lane,
        ...(a.driver ? { driver: a.driver } : {}),
        command: { ...command, env: { ...env, set: { ...(env.set ?? {}), ...(a.env ?? {}), A4AA_TEST_MARKER: marker } } },
      } as AgentSpec;
      const s = new TestSidecar();
      try {
        const sid = await s.open(spec, { cwd: run.cwd, ...(a.options ? { options: a.options } : {}) });
        const started = Date.now();
        const tick = c.slowMs ? setInterval(() => console.log(`t+${Date.now() - started} ms: ${mock.mainRequests().length} requests`), 30_000) : undefined;
        const r = await s.call("session/prompt", { sessionId: sid, text: "Say hello." });
        clearInterval(tick);
        const d = r.error?.data;
        console.log(`${a.agent} ${a.lane} ${c.name} (${Date.now() - started} ms, ${mock.mainRequests().length} requests): ${JSON.stringify(d ?? r.result).slice(0, 1500)}`);
        assert.equal(d?.code, c.code, JSON.stringify(r).slice(0, 2000));
        assert.equal(d.retryable, c.code !== "quota_exhausted");
        assert.equal(d.retryAfterMs, c.retryAfterMs, "retryAfterMs only when the agent passed the hint on");
        assert.ok(mock.mainRequests().length >= 1, "the agent asked its model API");
        await s.ok("session/close", { sessionId: sid });
      } finally {
        await teardownRealRig({ s, mock, run, marker });
      }
    });
  }
}

/**
 * Claude Code retries a 429 / 529 itself (up to 10 times, minutes with its backoff) before it
 * reports one; CLAUDE_CODE_MAX_RETRIES=0 (its own setting) makes it report the first at once.
 */
export const CLAUDE_NO_RETRY = { CLAUDE_CODE_MAX_RETRIES: "0" };

/** Anthropic's refusals in its own words (docs.claude.com/en/api/errors). */
export const ANTHROPIC_REFUSALS: readonly RefusalCase[] = [
  {
    name: "429 rate_limit_error with retry-after: 7",
    reply: { ...reply.error(429, "Number of request tokens has exceeded your per-minute rate limit; see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.", "rate_limit_error"), retryAfter: 7 },
    code: "rate_limited",
  },
  {
    name: "529 overloaded_error",
    reply: reply.error(529, "Overloaded", "overloaded_error"),
    code: "overloaded",
  },
  {
    name: "400 credit balance too low",
    reply: reply.error(400, "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.", "invalid_request_error"),
    code: "quota_exhausted",
  },
];

/** Gemini's 429 as the API sends it: RESOURCE_EXHAUSTED with QuotaFailure and RetryInfo details. */
function googleQuota429(message: string, quotaId: string, retryDelay: string): Reply {
  return {
    type: "custom",
    handle: (_req, res) => {
      const body = JSON.stringify({
        error: {
          code: 429,
          message,
          status: "RESOURCE_EXHAUSTED",
          details: [
            { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests", quotaId, quotaDimensions: { location: "global", model: "gemini-2.5-flash" }, quotaValue: "10" }] },
            { "@type": "type.googleapis.com/google.rpc.Help", links: [{ description: "Learn more about Gemini API quotas", url: "https://ai.google.dev/gemini-api/docs/rate-limits" }] },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
          ],
        },
      });
      res.writeHead(429, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
      res.end(body);
    },
  };
}

/**
 * Gemini's refusals in the API's own shape. Gemini CLI retries a per-minute 429 itself (10
 * attempts) waiting what RetryInfo says, and a 429 without details with its own backoff (5 s
 * doubling to 30 s: minutes, not run here); a daily quota or `limit: 0` is final at once.
 */
export const GEMINI_REFUSALS: readonly RefusalCase[] = [
  {
    name: "429 per-minute quota, RetryInfo 0.2s (retried by gemini, then reported)",
    retryAfterMs: 200,
    // Measured: 10 requests over 237 s (gemini waits 5 s doubling to 30 s, not the 0.2 s).
    slowMs: 300_000,
    reply: googleQuota429("You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-flash. Please retry in 0.2s.", "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "0.2s"),
    code: "rate_limited",
  },
  {
    name: "429 daily quota (QuotaFailure PerDay)",
    reply: googleQuota429("You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250, model: gemini-2.5-flash. Please retry in 7s.", "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "7s"),
    code: "quota_exhausted",
  },
  {
    name: "429 free tier limit: 0 (no details)",
    reply: reply.error(429, "You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-2.5-flash. Please retry in 7s."),
    code: "quota_exhausted",
    // gemini passes the API's text on, hint included (the daily case above it rewrites).
    retryAfterMs: 7000,
  },
];
