// A prompt's `text` and `content` (§11) as one ordered list of blocks, checked once for every
// lane: R-CONTENT-2 (base64, size) and R-CONTENT-1's refusal of what the session's agent cannot
// take, both before the turn starts.
import type { ContentBlock, ContentCapabilities, SessionPromptParams } from "../../generated/ts/types.js";
import { A4aaError, errors } from "../errors.js";
import { LIMITS } from "../../generated/ts/limits.js";

/** Decoded images above this are `invalid_params` (R-CONTENT-2). */
export const MAX_IMAGE_BYTES: number = LIMITS.imageMaxBytes;

/** What a lane gets for one turn: the text of the prompt and all of its blocks. */
export interface PromptContent {
  /** `text` and the text blocks of `content`, in order, joined by a blank line. */
  text: string;
  /** Every block in order, `text` first as a text block. */
  blocks: ContentBlock[];
}

type Prompted = Pick<SessionPromptParams, "text" | "content">;

/** `invalid_params` unless `text` or a block of `content` has something in it (checked before the session is looked up, like the schema). */
export function checkNotEmpty(input: Prompted): void {
  if (input.text || (input.content ?? []).some((b) => b.type !== "text" || b.text.length > 0)) return;
  throw errors.invalidParams("prompt", "the prompt is empty: give `text` or at least one non-empty `content` block");
}

/** The block types beside text that `caps` lacks, in prompt order, without repeats. */
function refusedTypes(blocks: ContentBlock[], caps: ContentCapabilities): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.type !== "text" && !caps[b.type] && !out.includes(b.type)) out.push(b.type);
  }
  return out;
}

function checkImage(data: string, index: number): void {
  // The schema's pattern admits the base64 alphabet; the length and the padding are checked here.
  if (data.length % 4 !== 0 || /=[^=]/.test(data)) {
    throw errors.invalidParams("prompt", `content[${index}]: image data is not base64 (RFC 4648, its length a multiple of 4, padding only at the end)`);
  }
  const pad = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  const bytes = (data.length / 4) * 3 - pad;
  if (bytes > MAX_IMAGE_BYTES) {
    throw errors.invalidParams("prompt", `content[${index}]: the image is ${bytes} bytes decoded; at most ${MAX_IMAGE_BYTES} (20 MiB)`);
  }
}

/**
 * R-CONTENT-1/2: the prompt as blocks, or the typed error that fails it before the turn:
 * `invalid_params` for an empty prompt or a bad image, `unsupported_content` for a block type
 * the session's agent does not take.
 */
export function promptContent(input: Prompted, caps: ContentCapabilities, agent: string): PromptContent {
  checkNotEmpty(input);
  const blocks: ContentBlock[] = [];
  if (input.text) blocks.push({ type: "text", text: input.text });
  for (const b of input.content ?? []) blocks.push(b);
  (input.content ?? []).forEach((b, i) => {
    if (b.type === "image") checkImage(b.data, i);
  });
  const refused = refusedTypes(blocks, caps);
  if (refused.length > 0) {
    const takes = (Object.keys(caps) as (keyof ContentCapabilities)[]).filter((k) => caps[k]);
    throw errors.unsupportedContent("prompt",
      `${agent} cannot take ${refused.join(" or ")} content (it takes text${takes.map((t) => `, ${t}`).join("")}; see capabilities.content); nothing was sent`,
    );
  }
  const text = blocks
    .filter((b): b is Extract<ContentBlock, { type: "text" }> => b.type === "text")
    .map((b) => b.text)
    .filter((t) => t.length > 0)
    .join("\n\n");
  return { text, blocks };
}

/** Capabilities of a lane that takes only text. */
export const TEXT_ONLY: ContentCapabilities = { image: false, resource: false, resourceLink: false };
