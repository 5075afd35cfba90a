// Serialising a message that holds a big string (a 64 MiB prompt or message text) without
// building the whole line: JSON.stringify of a 64 MiB string alone peaks at twice its size.
// The JSON around the big string is stringified as usual; the big string is escaped a
// slice at a time, as the slices are written. The pieces joined are byte for byte
// JSON.stringify's output (stringifyWithRaw's, for a message with a raw id).
import { randomBytes } from "node:crypto";
import { RawJson } from "./raw-id.js";

/** Strings longer than this make a message "big". */
export const BIG_STRING_CHARS = 1 << 20;
/** A big string is escaped and written this many characters at a time. */
export const SLICE_CHARS = 1 << 20;

/** True when `v` holds a string longer than BIG_STRING_CHARS anywhere. */
export function hasBigString(v: unknown): boolean {
  if (typeof v === "string") return v.length > BIG_STRING_CHARS;
  if (v === null || typeof v !== "object") return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (hasBigString(v[i])) return true;
    return false;
  }
  for (const k in v) if (hasBigString((v as Record<string, unknown>)[k])) return true;
  return false;
}

/** Where to cut `s` near `end` without splitting a surrogate pair (each half would become U+FFFD). */
function cut(s: string, end: number): number {
  if (end >= s.length) return s.length;
  const c = s.charCodeAt(end - 1);
  return c >= 0xd800 && c <= 0xdbff ? end - 1 : end;
}

/** A serialised line (no newline) in slices. */
export function* textSlices(json: string): Generator<string> {
  for (let pos = 0; pos < json.length; ) {
    const end = cut(json, pos + SLICE_CHARS);
    yield json.slice(pos, end);
    pos = end;
  }
}

// Stands in for a big string or a raw id inside the JSON; random, so no real string can
// look like it.
const TOKEN = randomBytes(8).toString("hex");
const PLACEHOLDER = new RegExp(`"\\\\u0000${TOKEN}(big|raw)(\\d+)\\\\u0000"`, "g");

/**
 * `msg` as JSON text, in pieces: each big string is escaped a slice at a time, lazily.
 * `raw`: the message holds RawJson ids to splice in (see stringifyWithRaw).
 */
export function* jsonPieces(msg: unknown, raw: boolean): Generator<string> {
  const bigs: string[] = [];
  const raws: string[] = [];
  const json = JSON.stringify(msg, (_k, v: unknown) => {
    if (typeof v === "string" && v.length > BIG_STRING_CHARS) {
      bigs.push(v);
      return `\u0000${TOKEN}big${bigs.length - 1}\u0000`;
    }
    if (raw && v instanceof RawJson) {
      raws.push(v.text);
      return `\u0000${TOKEN}raw${raws.length - 1}\u0000`;
    }
    return v;
  });
  let last = 0;
  for (const m of json.matchAll(PLACEHOLDER)) {
    if (m.index! > last) yield json.slice(last, m.index);
    const i = Number(m[2]);
    if (m[1] === "raw") yield raws[i];
    else {
      const s = bigs[i];
      bigs[i] = "";
      yield '"';
      for (let pos = 0; pos < s.length; ) {
        const end = cut(s, pos + SLICE_CHARS);
        yield JSON.stringify(s.slice(pos, end)).slice(1, -1);
        pos = end;
      }
      yield '"';
    }
    last = m.index! + m[0].length;
  }
  if (last < json.length) yield json.slice(last);
}
