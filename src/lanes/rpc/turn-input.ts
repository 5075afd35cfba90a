// R-CONTENT-1 for Codex: a prompt's blocks as `turn/start` input items.
import type * as C from "../../../generated/codex/types.js";
import { blockText } from "../content-text.js";
import type { TurnInput } from "../lane.js";

/** R-CONTENT-1: the prompt as `turn/start` input items, in order. */
export function codexInput(input: TurnInput): C.TurnStartParams["input"] {
  return input.blocks.flatMap((b): C.TurnStartParams["input"] => {
    if (b.type === "image") return [{ type: "image", url: `data:${b.mimeType};base64,${b.data}` }];
    const text = blockText(b);
    return text ? [{ type: "text", text, text_elements: [] }] : [];
  });
}
