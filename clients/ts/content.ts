// Prompt content (protocol 1.2): content blocks from image bytes and files, for
// `client.prompt(sessionId, text, {content})` or session/prompt's `content`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ImageContent, ResourceContent, ResourceLinkContent } from "../../generated/ts/types.js";

const IMAGE_TYPES: Record<string, ImageContent["mimeType"]> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** An image block of these bytes. */
export function image(data: Uint8Array, mimeType: ImageContent["mimeType"]): ImageContent {
  return { type: "image", mimeType, data: Buffer.from(data).toString("base64") };
}

/** An image file as a block; the mime type comes from the extension (.png, .jpg, .jpeg, .gif, .webp). */
export function imageFile(file: string): ImageContent {
  const mimeType = IMAGE_TYPES[path.extname(file).toLowerCase()];
  if (!mimeType) throw new TypeError(`${file}: not a png, jpeg, gif or webp image (by its extension)`);
  return image(readFileSync(file), mimeType);
}

/** A text file's contents, embedded and named by its file:// uri. */
export function fileResource(file: string, mimeType?: string): ResourceContent {
  return { type: "resource", uri: pathToFileURL(path.resolve(file)).href, text: readFileSync(file, "utf8"), ...(mimeType ? { mimeType } : {}) };
}

/** A link to a file the agent can read itself (its name: the file's base name). */
export function fileLink(file: string): ResourceLinkContent {
  return { type: "resourceLink", uri: pathToFileURL(path.resolve(file)).href, name: path.basename(file) };
}
