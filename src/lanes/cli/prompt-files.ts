// Images of a prompt written for a CLI that takes them as files (`codex exec -i`, …): a
// private temporary folder (mode 0700, files 0600) per turn, removed when the turn has
// ended — completed, failed or cancelled (R-CONTENT-1).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ContentBlock, ImageContent } from "../../../generated/ts/types.js";
import { A4aaError, errors } from "../../errors.js";
import { registerTemp, releaseTemp, tempPrefix } from "../../supervise/temp-files.js";

const EXT: Record<ImageContent["mimeType"], string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };

const PROMPT_FILES_KIND = "content";
/** Prefix of the folders under the sidecar's temporary folder. */
export const PROMPT_FILES_PREFIX = `a4aa-${PROMPT_FILES_KIND}-`;

export class PromptFiles {
  private constructor(
    /** The folder, or null when the prompt has no image. */
    readonly dir: string | null,
    /** The images' paths, in prompt order. */
    readonly images: string[],
  ) {}

  static readonly none = new PromptFiles(null, []);

  /** Writes the prompt's images (none: nothing is created). */
  static async write(blocks: readonly ContentBlock[]): Promise<PromptFiles> {
    const imgs = blocks.filter((b): b is ImageContent => b.type === "image");
    if (imgs.length === 0) return PromptFiles.none;
    // mkdtemp creates the folder with mode 0700.
    const dir = await mkdtemp(tempPrefix(os.tmpdir(), PROMPT_FILES_KIND));
    // Removed by the guard if the sidecar dies before the turn ends.
    registerTemp(dir);
    try {
      const paths: string[] = [];
      for (const [i, b] of imgs.entries()) {
        const p = path.join(dir, `image-${i + 1}.${EXT[b.mimeType]}`);
        await writeFile(p, Buffer.from(b.data, "base64"), { mode: 0o600 });
        paths.push(p);
      }
      return new PromptFiles(dir, paths);
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      releaseTemp(dir);
      throw errors.internalError("prompt", `could not write the prompt's images to ${dir}: ${(e as Error).message}; nothing was started`);
    }
  }

  async remove(): Promise<void> {
    if (!this.dir) return;
    await rm(this.dir, { recursive: true, force: true });
    releaseTemp(this.dir);
  }
}
