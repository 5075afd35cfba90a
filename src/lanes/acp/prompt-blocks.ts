// R-CONTENT-1 for ACP: a prompt's blocks as ACP content blocks.
import type * as A from "../../../generated/acp/types.js";
import type { TurnInput } from "../lane.js";

/** R-CONTENT-1: the prompt's blocks as ACP content blocks (checked against promptCapabilities before). */
export function acpPrompt(blocks: TurnInput["blocks"]): A.ContentBlock[] {
  return blocks.map((b): A.ContentBlock => {
    switch (b.type) {
      case "text":
        return { type: "text", text: b.text };
      case "image":
        return { type: "image", mimeType: b.mimeType, data: b.data };
      case "resource":
        return { type: "resource", resource: { uri: b.uri, text: b.text, ...(b.mimeType ? { mimeType: b.mimeType } : {}) } };
      case "resourceLink":
        return { type: "resource_link", uri: b.uri, name: b.name ?? b.uri.split("/").pop() ?? b.uri, ...(b.mimeType ? { mimeType: b.mimeType } : {}) };
    }
  });
}
