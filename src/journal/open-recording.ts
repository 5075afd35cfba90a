// `--record DIR`: the directory is created if needed (mode 0700) and must be writable.
import { accessSync, constants, mkdirSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../cli/args.js";
import type { Logger } from "../log.js";
import { Recording } from "./recorder.js";

export async function openRecording(dir: string, logger: Logger): Promise<Recording> {
  const abs = path.resolve(dir);
  try {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
    accessSync(abs, constants.W_OK);
  } catch (e) {
    throw new UsageError(`--record ${JSON.stringify(dir)}: cannot write transcripts there (${(e as Error).message})`, "a4aa serve --help");
  }
  return new Recording(abs, logger);
}
