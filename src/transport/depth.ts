// How deep a line of JSON nests, found without recursion and before anything recursive
// (JSON.stringify, the validators, the lanes' walkers) can see the parsed value: JSON
// nested some thousands deep overflows the stack of any recursive walker.
import { LIMITS } from "../../generated/ts/limits.js";

/** Deepest nesting a message may have; legitimate messages stay far below it. */
export const MAX_JSON_DEPTH: number = LIMITS.jsonMaxDepth;

/** True when `text` opens more than `max` arrays/objects inside one another (strings skipped). */
export function nestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  // Every level takes at least one character, and one `[` or `{`: most lines, big ones too,
  // are cleared by these two memchr-fast counts without reading their strings.
  if (text.length <= max || count(text, "[", max) + count(text, "{", max) <= max) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes.
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q === -1) return false; // not JSON: the parser reports it
        let b = q - 1;
        while (text.charCodeAt(b) === 92 /* \ */) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

/** How often `ch` occurs in `text`, counting no further than just past `limit`. */
function count(text: string, ch: string, limit: number): number {
  let n = 0;
  for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1)) if (++n > limit) break;
  return n;
}

/** A line of JSON parsed, or why it was not: the one parser for JSON from a host or an agent. */
export type CheckedJson = { ok: true; value: unknown } | { ok: false; kind: "too_deep" | "parse_error"; detail: string };

/**
 * Parses `text` as JSON unless it nests deeper than `max` (checked first, without recursion):
 * every value it gives is at most `max` deep, so no recursive walker downstream (the
 * validators, the journal's sizing, redaction, JSON.stringify) can overflow the stack.
 */
export function parseJsonChecked(text: string, max: number = MAX_JSON_DEPTH): CheckedJson {
  if (nestsDeeperThan(text, max)) return { ok: false, kind: "too_deep", detail: `the message nests deeper than ${max} levels` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, kind: "parse_error", detail: `the line is not JSON: ${(e as Error).message}` };
  }
}
