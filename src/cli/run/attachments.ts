// `a4aa run --attach FILE` and `/attach FILE`: a file from the person's disk as a prompt
// content block (§11) — an image by its first bytes, else a text file's contents.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { image } from "../../../clients/ts/index.js";
import type { ContentBlock, ImageContent } from "../../../generated/ts/types.js";
import { LIMITS } from "../../../generated/ts/limits.js";

/** Text files bigger than this are refused: a prompt is not the way to hand over a data set. */
export const MAX_TEXT_BYTES = 8 * 1024 * 1024;

/** Why a file cannot be attached, for the person who asked. */
export class AttachError extends Error {}

const SIGNATURES: [ImageContent["mimeType"], (b: Buffer) => boolean][] = [
  ["image/png", (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ["image/jpeg", (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ["image/gif", (b) => b.subarray(0, 6).toString("latin1") === "GIF87a" || b.subarray(0, 6).toString("latin1") === "GIF89a"],
  ["image/webp", (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP"],
];

/** The mime type of a png, jpeg, gif or webp image, from its first bytes; else undefined. */
export function imageType(bytes: Buffer): ImageContent["mimeType"] | undefined {
  return SIGNATURES.find(([, is]) => is(bytes))?.[0];
}

/** A file as a content block: an image (base64) or an embedded text resource with its file:// uri. */
export function attachment(file: string, cwd: string): ContentBlock {
  const abs = path.resolve(cwd, file);
  let size: number;
  try {
    const st = statSync(abs);
    if (!st.isFile()) throw new AttachError(`cannot attach ${file}: it is not a regular file`);
    size = st.size;
  } catch (e) {
    if (e instanceof AttachError) throw e;
    throw new AttachError(`cannot attach ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`);
  }
  // Nothing bigger than an image can be sent: refused before it is read.
  if (size > LIMITS.imageMaxBytes) throw new AttachError(`cannot attach ${file}: it is ${size} bytes; at most ${LIMITS.imageMaxBytes} for an image (20 MiB), ${MAX_TEXT_BYTES} for a text file (8 MiB)`);
  const bytes = readFileSync(abs);
  const mimeType = imageType(bytes);
  if (mimeType) return image(bytes, mimeType);
  if (size > MAX_TEXT_BYTES) throw new AttachError(`cannot attach ${file}: ${size} bytes is more than a prompt should carry (at most ${MAX_TEXT_BYTES}, 8 MiB)`);
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (bytes.includes(0) || text.includes("\uFFFD")) {
    throw new AttachError(`cannot attach ${file}: it is neither text (UTF-8) nor a png, jpeg, gif or webp image`);
  }
  return { type: "resource", uri: pathToFileURL(abs).href, text };
}

/** A short label for the person: "screenshot.png (image/png, 12 KiB)". */
export function describeAttachment(file: string, block: ContentBlock): string {
  const name = path.basename(file);
  if (block.type === "image") return `${name} (${block.mimeType}, ${kib(Buffer.byteLength(block.data, "base64"))})`;
  if (block.type === "resource") return `${name} (${lineCount(block.text)} lines)`;
  return name;
}

/** Lines as a person counts them: a final newline ends the last line, it starts none. */
export function lineCount(text: string): number {
  if (!text) return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function kib(n: number): string {
  return n < 1024 ? `${n} bytes` : `${Math.round(n / 1024)} KiB`;
}
