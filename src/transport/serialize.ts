// The one serialiser of outgoing messages. Two things JSON.stringify cannot do alone:
// - a raw id (RawJson: the verbatim source text of an id JSON.parse would change) is
//   written as its text. Raw ids only ever stand as the `id` member of a message or of a
//   batch element, so that member is written by hand around JSON.stringify of the others:
//   no placeholder a real string could match.
// - a message holding a big string (a 64 MiB prompt or message text) is serialised
//   without building the whole line (JSON.stringify of a 64 MiB string alone peaks at twice
//   its size): the JSON around the big string is stringified as usual, the big string is
//   escaped a slice at a time, as the slices are written.
// The pieces joined are byte for byte JSON.stringify's output, raw ids aside.
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

/** Whether `msg` (a message or a batch) holds a RawJson id. */
export function hasRawId(msg: unknown): boolean {
  if (Array.isArray(msg)) return msg.some((m) => !!m && (m as { id?: unknown }).id instanceof RawJson);
  return !!msg && typeof msg === "object" && (msg as { id?: unknown }).id instanceof RawJson;
}

/** `msg` as one line of JSON (no newline). `raw`: it may hold RawJson ids (see hasRawId). */
export function serialize(msg: unknown, raw = hasRawId(msg)): string {
  if (!raw) return JSON.stringify(msg);
  let out = "";
  for (const p of jsonPieces(msg, true)) out += p;
  return out;
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

// Stands in for a big string inside the JSON; random per process, so no string a peer
// sends can look like it.
const TOKEN = randomBytes(12).toString("hex");
const PLACEHOLDER = new RegExp(`"\\\\u0000${TOKEN}big(\\d+)\\\\u0000"`, "g");

/**
 * `msg` as JSON text, in pieces: each big string is escaped a slice at a time, lazily.
 * `raw`: the message (or a batch element) may hold a RawJson id to write verbatim.
 */
export function* jsonPieces(msg: unknown, raw: boolean): Generator<string> {
  if (!raw) {
    yield* valuePieces(msg);
    return;
  }
  if (!Array.isArray(msg)) {
    yield* memberPieces(msg);
    return;
  }
  yield "[";
  for (let i = 0; i < msg.length; i++) {
    if (i) yield ",";
    // JSON.stringify writes a missing element as null.
    if (msg[i] === undefined) yield "null";
    else yield* memberPieces(msg[i]);
  }
  yield "]";
}

/** An object whose `id` may be RawJson: its members one by one, in order. */
function* memberPieces(m: unknown): Generator<string> {
  if (!m || typeof m !== "object" || !((m as { id?: unknown }).id instanceof RawJson)) {
    yield* valuePieces(m);
    return;
  }
  let sep = "{";
  for (const [k, v] of Object.entries(m)) {
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue; // as JSON.stringify
    yield `${sep}${JSON.stringify(k)}:`;
    sep = ",";
    if (v instanceof RawJson) yield v.text;
    else yield* valuePieces(v);
  }
  yield sep === "{" ? "{}" : "}";
}

/** A plain value (no RawJson): one piece, or pieces around its big strings. */
function* valuePieces(v: unknown): Generator<string> {
  if (!hasBigString(v)) {
    yield JSON.stringify(v);
    return;
  }
  const bigs: string[] = [];
  const json = JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === "string" && x.length > BIG_STRING_CHARS) {
      bigs.push(x);
      return `\u0000${TOKEN}big${bigs.length - 1}\u0000`;
    }
    return x;
  });
  let last = 0;
  for (const m of json.matchAll(PLACEHOLDER)) {
    if (m.index! > last) yield json.slice(last, m.index);
    const i = Number(m[1]);
    const s = bigs[i];
    bigs[i] = "";
    yield '"';
    for (let pos = 0; pos < s.length; ) {
      const end = cut(s, pos + SLICE_CHARS);
      yield JSON.stringify(s.slice(pos, end)).slice(1, -1);
      pos = end;
    }
    yield '"';
    last = m.index! + m[0].length;
  }
  if (last < json.length) yield json.slice(last);
}
