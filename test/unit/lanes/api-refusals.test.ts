// R-USAGE-1: the model API refusals in the agents' own words, typed (src/lanes/api-refusals.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { asApiRefusal, refusalKind, resetAt, retryAfterMs } from "../../../src/lanes/api-refusals.js";
import { errors } from "../../../src/errors.js";

test("R-USAGE-1: refusal kinds from real agents' texts (codex, Claude Code, Gemini, OpenAI bodies)", () => {
  assert.equal(refusalKind("exceeded retry limit, last status: 429 Too Many Requests, request id: req_1"), "rate_limited");
  assert.equal(refusalKind("Quota exceeded. Check your plan and billing details."), "quota_exhausted");
  assert.equal(refusalKind("You exceeded your current quota, please check your plan and billing details."), "quota_exhausted");
  assert.equal(refusalKind('API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'), "overloaded");
  assert.equal(refusalKind('[API Error: {"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}]'), "rate_limited");
  assert.equal(refusalKind("Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute'"), "rate_limited");
  assert.equal(refusalKind("API Error: 429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit"), "rate_limited");
  assert.equal(refusalKind("503 Service Unavailable"), "overloaded");
  assert.equal(refusalKind("Mock invalid request (400)"), undefined);
  assert.equal(refusalKind("the model refused to cooperate"), undefined);
});

test("R-USAGE-1: retryAfterMs only from what was said", () => {
  assert.equal(retryAfterMs("Please try again in 4.2s."), 4200);
  assert.equal(retryAfterMs("retry-after: 30"), 30_000);
  assert.equal(retryAfterMs("Retry after 250ms"), 250);
  assert.equal(retryAfterMs('{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"12s"}'), 12_000);
  assert.equal(retryAfterMs("Please retry in 2 minutes"), 120_000);
  assert.equal(retryAfterMs("429 Too Many Requests"), undefined);
  assert.equal(resetAt("your quota resets at 2026-12-05T10:00:00Z"), "2026-12-05T10:00:00.000Z");
  assert.equal(resetAt("quota exceeded"), undefined);
});

test("R-USAGE-1: agent_failed becomes the typed refusal with data; other codes and texts pass through", () => {
  const e = asApiRefusal(errors.agentFailed("prompt", "429 Too Many Requests: please try again in 1.5s", true));
  assert.equal(e.code, "rate_limited");
  assert.equal(e.retryable, true);
  assert.equal(e.uncertainEffect, true, "what the agent did before stays said");
  assert.deepEqual(e.toData(), { code: "rate_limited", stage: "prompt", retryable: true, uncertainEffect: true, detail: "429 Too Many Requests: please try again in 1.5s", retryAfterMs: 1500 });
  const q = asApiRefusal(errors.agentFailed("prompt", "insufficient_quota"));
  assert.equal(q.code, "quota_exhausted");
  assert.equal(q.retryable, false);
  assert.equal(q.toData().retryAfterMs, undefined);
  const other = errors.agentExited("prompt", "429");
  assert.equal(asApiRefusal(other), other, "only agent_failed is reclassified");
  const plain = errors.agentFailed("prompt", "boom");
  assert.equal(asApiRefusal(plain), plain);
});

test("R-USAGE-1: Gemini's quota texts as the real gemini --acp relays them (measured, test/real/gemini/acp.refusals.test.ts)", () => {
  // A per-minute quota, after gemini's own 10 attempts: a rate, with the API's hint.
  const perMinute = "session/prompt: You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-flash. Please retry in 0.2s.\nSuggested retry after 0.2s. (429)";
  assert.equal(refusalKind(perMinute), "rate_limited");
  assert.equal(retryAfterMs(perMinute), 200);
  // A daily quota (QuotaFailure …PerDay…): gemini's own words, gone for the day.
  assert.equal(refusalKind("session/prompt: You have exhausted your daily quota on this model. (429)"), "quota_exhausted");
  // The free tier at limit 0: no retry brings it back, whatever the hint says.
  assert.equal(refusalKind("You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-2.5-flash. Please retry in 7s. (429)"), "quota_exhausted");
  // A quota whose wait is past 5 minutes is not a rate.
  assert.equal(refusalKind("Quota exceeded for metric: x, limit: 100. Please retry in 3600s."), "quota_exhausted");
});

test("R-USAGE-1: Claude Code's refusals as the real claude and claude-agent-acp print them (measured)", () => {
  assert.equal(refusalKind("API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit."), "rate_limited");
  assert.equal(refusalKind("API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment."), "overloaded");
  assert.equal(refusalKind("Credit balance is too low"), "quota_exhausted");
  assert.equal(refusalKind('session/prompt: Internal error: Credit balance is too low (-32603) {"errorKind":"billing_error"}'), "quota_exhausted");
});
