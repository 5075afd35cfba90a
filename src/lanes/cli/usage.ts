// Usage arithmetic: sums, a turn's own figures from running totals, Anthropic-style
// usage as a4aa Usage.
import type { Usage } from "../../../generated/ts/types.js";
import { num, obj } from "./loose-json.js";

export function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return { ...b };
  const out: Usage = { ...a };
  for (const k of Object.keys(b) as (keyof Usage)[]) {
    const v = b[k];
    if (v === undefined) continue;
    if (k === "contextWindowTokens" || k === "contextUsedTokens") out[k] = v;
    else out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/** `now - before` per field: a turn's own figures from running totals (never negative). */
export function diffUsage(now: Usage, before: Usage | undefined): Usage {
  if (!before) return { ...now };
  const out: Usage = {};
  for (const k of Object.keys(now) as (keyof Usage)[]) {
    const v = now[k];
    if (v === undefined) continue;
    if (k === "contextWindowTokens" || k === "contextUsedTokens") out[k] = v;
    else out[k] = Math.max(0, v - (before[k] ?? 0));
  }
  return out;
}

export function cleanUsage(u: Usage): Usage | undefined {
  const out: Usage = {};
  for (const [k, v] of Object.entries(u) as [keyof Usage, number | undefined][]) if (v !== undefined) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** Anthropic-style usage (`input_tokens`, `cache_read_input_tokens`, …) as a4aa Usage. */
export function anthropicUsage(u: unknown, costUsd?: number): Usage | undefined {
  const x = obj(u);
  const input = num(x.input_tokens);
  const output = num(x.output_tokens);
  const cacheRead = num(x.cache_read_input_tokens) ?? num(x.cached_input_tokens);
  const cacheWrite = num(x.cache_creation_input_tokens);
  const usage: Usage = {
    inputTokens: input === undefined && cacheRead === undefined && cacheWrite === undefined ? undefined : (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0),
    outputTokens: output,
    cachedInputTokens: cacheRead,
    reasoningTokens: num(x.reasoning_tokens) ?? num(x.thoughts_tokens),
    costUsd,
  };
  if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) {
    usage.totalTokens = num(x.total_tokens) ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  }
  return cleanUsage(usage);
}
