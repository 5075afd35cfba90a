// Reading the loosely typed JSON that CLIs print: guards that never throw, and a stdout
// line parsed or passed on as raw text.
import type { JsonValue } from "../../../generated/ts/types.js";
import { parseJsonChecked } from "../../transport/depth.js";
import { isBlank } from "../../transport/line-reader.js";

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const obj = (v: unknown): Obj => (isObj(v) ? v : {});
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const json = (v: unknown): JsonValue => (v === undefined ? null : (v as JsonValue));

/**
 * A stdout line of a JSON-lines CLI, parsed by the depth-checked parser every lane uses; a
 * line that is not JSON, or nests deeper than MAX_JSON_DEPTH (R-HOSTILE-1), is passed on as
 * a `raw` event of its text (nothing the CLI says is lost) and gives undefined, as does a
 * blank one.
 */
export function parseJsonLine(buf: Buffer, emitRaw: (text: string) => void): unknown {
  if (isBlank(buf)) return undefined;
  const text = buf.toString("utf8");
  const r = parseJsonChecked(text);
  if (r.ok) return r.value;
  emitRaw(text);
  return undefined;
}
