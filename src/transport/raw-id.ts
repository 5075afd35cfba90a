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

function skipValue(s: string, i: number): number {
  i = skipWs(s, i);
  const c = s[i];
  if (c === '"') return skipString(s, i);
  if (c === "{" || c === "[") {
    const close = c === "{" ? "}" : "]";
    i++;
    for (;;) {
      i = skipWs(s, i);
      if (s[i] === close) return i + 1;
      if (c === "{") {
        i = skipString(s, i);
        i = skipWs(s, i) + 1; // ':'
      }
      i = skipValue(s, i);
      i = skipWs(s, i);
      if (s[i] === ",") i++;
      else if (s[i] === close) return i + 1;
      else return s.length;
    }
  }
  // number, true, false, null
  while (i < s.length && !",}] \t\r\n".includes(s[i])) i++;
  return i;
}

/** The raw text of the top-level `id` member of the object starting at `i`, if any. */
function rawIdOfObject(s: string, i: number): string | undefined {
  i = skipWs(s, i);
  if (s[i] !== "{") return undefined;
  i++;
  let found: string | undefined;
  for (;;) {
    i = skipWs(s, i);
    if (i >= s.length || s[i] === "}") return found;
    const keyEnd = skipString(s, i);
    const key = JSON.parse(s.slice(i, keyEnd)) as string;
    i = skipWs(s, keyEnd) + 1;
    const vStart = skipWs(s, i);
    const vEnd = skipValue(s, vStart);
    if (key === "id") found = s.slice(vStart, vEnd); // the last duplicate wins, as in JSON.parse
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

/** Placeholder text a raw id stands in for while a message is serialised. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify that writes RawJson values as their text, unquoted. */
export function stringifyWithRaw(value: unknown): string {
  const raws: string[] = [];
  const json = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return v;
  });
  if (!raws.length) return json;
  return json.replace(/"\\u0000raw(\d+)\\u0000"/g, (_m, n: string) => raws[Number(n)]);
}
