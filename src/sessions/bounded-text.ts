// The turn's outcome `text` has a bound (R-HOSTILE-2): an agent streaming without end
// must not grow one string until the sidecar dies. Events keep flowing; only the text
// collected for TurnOutcome.text stops growing, and says so.
import { LIMITS } from "../../generated/ts/limits.js";

/** Most UTF-16 code units of message text a TurnOutcome carries (64 Mi, the line limit: one
 * message an agent can send always comes back whole; 64–192 MiB as UTF-8). */
export const MAX_TURN_TEXT: number = LIMITS.turnTextMaxCodeUnits;
export const TRUNCATED_MARKER = "\n[a4aa: the turn's text was cut here at 64 Mi characters; the full text was streamed as messageChunk events]";

/** `text` with `chunk` appended, cut with the marker once it would pass MAX_TURN_TEXT. */
export function appendBounded(text: string, chunk: string): string {
  if (text.length > MAX_TURN_TEXT) return text; // already cut: it ends with the marker
  if (text.length + chunk.length <= MAX_TURN_TEXT) return text + chunk;
  let cut = MAX_TURN_TEXT - text.length;
  // Never split a surrogate pair.
  if (cut > 0 && /[\uD800-\uDBFF]/.test(chunk[cut - 1])) cut--;
  return text + chunk.slice(0, cut) + TRUNCATED_MARKER;
}
