// Request ids must be echoed verbatim. JSON.parse turns a number id that is not a safe
// integer (a Go host's uint64, 1.50) into a different number; for those rare ids the
// exact source text of the `id` member is recovered here and spliced into the answer.

/** True when re-serialising the parsed id might not give back what the peer sent. */
export function idNeedsRawText(id: unknown): boolean {
  return typeof id === "number" && !Number.isSafeInteger(id);
}

function skipWs(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
    i++;
  }
  return i;
}

function skipString(s: string, i: number): number {
  // s[i] is the opening quote.
  i++;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 92) i += 2;
    else if (c === 34) return i + 1;
    else i++;
  }
  return i;
}

/** The end of the value at `i`. Iterative: the text may nest to any depth. */
function skipValue(s: string, i: number): number {
  i = skipWs(s, i);
  const c = s.charCodeAt(i);
  if (c === 34 /* " */) return skipString(s, i);
  if (c !== 123 /* { */ && c !== 91 /* [ */) {
    // number, true, false, null
    while (i < s.length && !",}] \t\r\n".includes(s[i])) i++;
    return i;
  }
  let depth = 0;
  while (i < s.length) {
    const d = s.charCodeAt(i);
    if (d === 34) {
      i = skipString(s, i);
      continue;
    }
    if (d === 123 || d === 91) depth++;
    else if ((d === 125 || d === 93) && --depth === 0) return i + 1;
    i++;
  }
  return i;
}

/** The raw text of the top-level `id` member of the object starting at `i`, if any. */
function rawIdOfObject(s: string, i: number): string | undefined {
  return rawMembers(s, i, "id").get("id");
}

/**
 * The raw text of the top-level members `names` of the object at `i` (the last duplicate
 * wins, as in JSON.parse). Iterative: the text may nest to any depth.
 */
export function rawMembers(s: string, i: number, ...names: string[]): Map<string, string> {
  const found = new Map<string, string>();
  i = skipWs(s, i);
  if (s[i] !== "{") return found;
  i++;
  for (;;) {
    i = skipWs(s, i);
    if (i >= s.length || s[i] === "}") return found;
    const keyEnd = skipString(s, i);
    const key = JSON.parse(s.slice(i, keyEnd)) as string;
    i = skipWs(s, keyEnd) + 1;
    const vStart = skipWs(s, i);
    const vEnd = skipValue(s, vStart);
    if (names.includes(key)) found.set(key, s.slice(vStart, vEnd));
    i = skipWs(s, vEnd);
    if (s[i] === ",") i++;
    else return found;
  }
}

/**
 * For a single message: its raw id text. For a batch: one entry per element.
 * `text` must be valid JSON (it has already been parsed).
 */
export function rawIds(text: string): string | undefined | (string | undefined)[] {
  const i = skipWs(text, 0);
  if (text[i] === "{") return rawIdOfObject(text, i);
  if (text[i] !== "[") return undefined;
  const out: (string | undefined)[] = [];
  let j = i + 1;
  for (;;) {
    j = skipWs(text, j);
    if (j >= text.length || text[j] === "]") return out;
    out.push(text[j] === "{" ? rawIdOfObject(text, j) : undefined);
    j = skipWs(text, skipValue(text, j));
    if (text[j] === ",") j++;
    else return out;
  }
}

/** An id's verbatim source text, written unquoted by the serialiser (see serialize.ts). */
export class RawJson {
  constructor(readonly text: string) {}
}
