// Turns a byte stream into parsed JSON messages, one per line, and reports every line
// that cannot be one (too large, not UTF-8, not JSON) without stopping the stream.
import { isUtf8 } from "node:buffer";
import type { Readable } from "node:stream";
import { A4aaError } from "../errors.js";
import { LineReader, isBlank } from "./line-reader.js";

export interface FrameHandlers {
  /** A parsed message and the text it was parsed from. */
  onMessage: (value: unknown, text: string) => void;
  /** A line that is not a message; the stream goes on. */
  onFrameError: (error: A4aaError) => void;
  onEnd: () => void;
}

export function frameParser(maxLineBytes: number, h: Pick<FrameHandlers, "onMessage" | "onFrameError">): LineReader {
  return new LineReader({
    maxLineBytes,
    onOversize: (bytes) =>
      h.onFrameError(
        new A4aaError(
          "frame_too_large",
          "transport",
          `a line of ${bytes} bytes exceeds the ${maxLineBytes}-byte limit; it was discarded`,
        ),
      ),
    onLine: (line) => {
      if (line.length === 0 || isBlank(line)) return;
      if (!isUtf8(line)) {
        h.onFrameError(new A4aaError("invalid_utf8", "transport", "the line is not valid UTF-8"));
        return;
      }
      const text = line.toString("utf8");
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        h.onFrameError(new A4aaError("parse_error", "transport", `the line is not JSON: ${(e as Error).message}`));
        return;
      }
      h.onMessage(value, text);
    },
  });
}

/** Reads `input` to its end, line by line. Returns a function that stops reading. */
export function readFrames(input: Readable, maxLineBytes: number, h: FrameHandlers): () => void {
  const parser = frameParser(maxLineBytes, h);
  let ended = false;
  const onData = (chunk: Buffer) => parser.push(chunk);
  const finish = () => {
    if (ended) return;
    ended = true;
    input.off("data", onData);
    parser.end();
    h.onEnd();
  };
  input.on("data", onData);
  input.once("end", finish);
  input.once("close", finish);
  input.once("error", finish);
  return () => {
    input.off("data", onData);
    input.pause();
  };
}
