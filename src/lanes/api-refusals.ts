// R-USAGE-1: a model API's refusal for rate, quota or load, as the agents report it in their
// own words (an HTTP status in an error text, the API's error type, "retry in 4.2s"), turned
// into one typed error whatever the lane: rate_limited and overloaded (retryable),
// quota_exhausted (not, until it resets). What the agent said about when to come back goes
// to retryAfterMs / resetAt; nothing is guessed when it said nothing.
import type { ErrorCode } from "../../generated/ts/types.js";
import { A4aaError, errors } from "../errors.js";

// Quota before rate: Gemini's 429 RESOURCE_EXHAUSTED and OpenAI's insufficient_quota are
// 429s whose text says the quota is gone.
const QUOTA = /insufficient_quota|quota (exceeded|exhausted|reached)|exceeded your (current )?quota|exhausted your (\w+ )?quota|credit balance is too low|out of credits|usage limit (reached|exceeded)|billing (hard )?limit|\bquota\b.*\b(limit|exceeded)/i;
const RATE = /\b429\b|rate[ _-]?limit(ed)?|too many requests|rate_limit_error|resource_exhausted/i;
const PER_MINUTE = /per[ _-]?minute|perminute|\b(tpm|rpm)\b|tokens per min/i;
// Gone until a day or a plan changes: a daily quota, Gemini's free tier at `limit: 0`.
const FOR_GOOD = /daily|per[ _-]?day|perday|\blimit:\s*0(?![\d.])/i;
// A quota refusal that says to come back within 5 minutes is a rate, whatever its words (Gemini
// CLI's own rule: it retries those and appends "Suggested retry after 0.2s." when it gives up).
const SHORT_WAIT_MS = 300_000;
const LOAD = /\b529\b|overloaded(_error)?|\b503\b|service unavailable|server is (busy|overloaded)|capacity (constraints|exceeded)/i;

/** Milliseconds the text asks to wait: "retry after 7s", "Retry-After: 30", "retry in 4.2s", "retryDelay": "12s". */
export function retryAfterMs(text: string): number | undefined {
  const m =
    /retry[- ]after["':\s]*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec(?:onds?)?|m|min(?:utes?)?)?\b/i.exec(text) ??
    /(?:retry|try again)(?: the request)? in (\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec(?:onds?)?|m|min(?:utes?)?)\b/i.exec(text) ??
    /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)(s)"/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? "s").toLowerCase();
  const ms = unit.startsWith("ms") || unit.startsWith("milli") ? n : unit.startsWith("m") ? n * 60_000 : n * 1000;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** When a quota or window resets, if the text gives a date: "resets at 2026-12-05T10:00:00Z". */
export function resetAt(text: string): string | undefined {
  const m = /reset(?:s|ting)?(?: at| on)?[:\s]+"?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)/i.exec(text);
  if (!m) return undefined;
  const t = Date.parse(m[1]!.replace(" ", "T"));
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** Which refusal the text reads as, if any. */
export function refusalKind(text: string): Extract<ErrorCode, "rate_limited" | "quota_exhausted" | "overloaded"> | undefined {
  // A per-minute quota (Gemini's "Quota exceeded for … per minute", OpenAI's TPM/RPM) is a rate.
  if (QUOTA.test(text)) {
    if (PER_MINUTE.test(text)) return "rate_limited";
    if (FOR_GOOD.test(text)) return "quota_exhausted";
    const after = retryAfterMs(text);
    return after !== undefined && after <= SHORT_WAIT_MS ? "rate_limited" : "quota_exhausted";
  }
  if (RATE.test(text)) return "rate_limited";
  if (LOAD.test(text)) return "overloaded";
  return undefined;
}

/** A lane's `agent_failed` that reads as a model API refusal, typed; anything else unchanged. */
export function asApiRefusal(err: A4aaError): A4aaError {
  if (err.code !== "agent_failed") return err;
  const text = err.detail ?? "";
  const kind = refusalKind(text);
  if (!kind) return err;
  const after = retryAfterMs(text);
  const reset = resetAt(text);
  const extra = { ...(after !== undefined ? { retryAfterMs: after } : {}), ...(reset ? { resetAt: reset } : {}) };
  const make = kind === "quota_exhausted" ? errors.quotaExhausted : kind === "rate_limited" ? errors.rateLimited : errors.overloaded;
  return make(err.stage, text, { uncertainEffect: err.uncertainEffect, ...(Object.keys(extra).length ? { extra } : {}) });
}
