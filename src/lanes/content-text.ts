// How prompt content becomes text for an agent that takes only text (R-CONTENT-1): an
// embedded file as a delimited block naming its uri, a link as the path (or uri) the agent
// can read itself. One rendering for every lane that needs it.
import { fileURLToPath } from "node:url";
import type { ContentBlock, ResourceContent, ResourceLinkContent } from "../../generated/ts/types.js";

/** A `file://` uri as a local path; any other uri as it is. */
export function uriAsPath(uri: string): string {
  if (!uri.startsWith("file://")) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/**
 * An embedded file's contents between two marker lines that name its uri (and mime type):
 *
 *     [Embedded file file:///repo/a.ts (text/x-typescript)]
 *     …contents…
 *     [End of file:///repo/a.ts]
 */
export function resourceText(b: ResourceContent): string {
  const body = b.text.endsWith("\n") ? b.text : `${b.text}\n`;
  return `[Embedded file ${b.uri}${b.mimeType ? ` (${b.mimeType})` : ""}]\n${body}[End of ${b.uri}]`;
}

/** A link: `[Linked file "name": /abs/path]` for `file://`, `[Linked resource "name": uri]` else. */
export function linkText(b: ResourceLinkContent): string {
  const file = b.uri.startsWith("file://");
  const name = b.name ? ` ${JSON.stringify(b.name)}` : "";
  const mime = b.mimeType ? ` (${b.mimeType})` : "";
  return `[Linked ${file ? "file" : "resource"}${name}: ${uriAsPath(b.uri)}${mime}]`;
}

/** A block other than an image as text (an image: undefined). */
export function blockText(b: ContentBlock): string | undefined {
  switch (b.type) {
    case "text":
      return b.text;
    case "resource":
      return resourceText(b);
    case "resourceLink":
      return linkText(b);
    case "image":
      return undefined;
  }
}

/** Every block but images as one text, in order, joined by a blank line. */
export function blocksText(blocks: readonly ContentBlock[]): string {
  return blocks
    .map(blockText)
    .filter((t): t is string => t !== undefined && t.length > 0)
    .join("\n\n");
}
