// R-CONTENT-1 for the stream-json CLIs: a prompt's blocks as a `user` line's content.
import { blockText } from "../content-text.js";
import type { TurnInput } from "../lane.js";
import type { Obj } from "./loose-json.js";

/**
 * R-CONTENT-1: the prompt as the content of a stream-json `user` line, in order: images as
 * Anthropic image blocks, everything else as text blocks (content-text.ts).
 */
export function userContent(input: TurnInput): Obj[] {
  const out: Obj[] = [];
  for (const b of input.blocks) {
    if (b.type === "image") out.push({ type: "image", source: { type: "base64", media_type: b.mimeType, data: b.data } });
    else {
      const text = blockText(b);
      if (text) out.push({ type: "text", text });
    }
  }
  return out;
}
