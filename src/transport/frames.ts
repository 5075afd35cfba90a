// Turns a byte stream into parsed JSON messages, one per line, and reports every line
// that cannot be one (too large, not UTF-8, not JSON) without stopping the stream.
import { isUtf8 } from "node:buffer";
import type { Readable } from "node:stream";
import { A4aaError } from "../errors.js";
import { needsSourceText } from "./json-rpc.js";
import { BIG_LINE_BYTES, LineSequencer, SKIP } from "./big-lines.js";
import { LineReader, isBlank } from "./line-reader.js";

export interface FrameHandlers {
  /**
   * A parsed message and the text it was parsed from — for a big line only when the
   * message needs it (an id to echo verbatim, see needsSourceText): its text can then be
   * freed before the message is handled.
   */
  onMessage: (value: unknown, text: string | undefined) => void;
  /** A line that is not a message; the stream goes on. */
  onFrameError: (error: A4aaError) => void;
  onEnd: () => void;
}

export interface FrameParser {
  push(chunk: Buffer): void;
  /** The stream ended: a last line without `\n` still counts. */
  end(): void;
  /** Runs `fn` once every line pushed so far has been handled (big lines take a moment). */
  afterLines(fn: () => void): void;
}

/** A parser that hands every message over with the text it was parsed from. */
export function frameParser(
  maxLineBytes: number,
  h: { onMessage: (value: unknown, text: string) => void; onFrameError: FrameHandlers["onFrameError"] },
): FrameParser {
  return parser(maxLineBytes, h as Pick<FrameHandlers, "onMessage" | "onFrameError">, true);
}

function parser(maxLineBytes: number, h: Pick<FrameHandlers, "onMessage" | "onFrameError">, keepText: boolean): FrameParser {
  const lines = new LineSequencer({
    parse: (text) => {
      try {
        return JSON.parse(text);
      } catch (e) {
        h.onFrameError(new A4aaError("parse_error", "transport", `the line is not JSON: ${(e as Error).message}`));
        return SKIP;
      }
    },
    needsText: keepText ? () => true : needsSourceText,
    deliver: (value, text) => h.onMessage(value, text),
  });
  const reader = new LineReader({
    maxLineBytes,
    onOversize: (bytes) => {
      const error = new A4aaError(
        "frame_too_large",
        "transport",
        `a line of ${bytes} bytes exceeds the ${maxLineBytes}-byte limit; it was discarded`,
      );
      lines.then(() => h.onFrameError(error));
    },
    onLine: (line) => {
      if (line.length === 0 || isBlank(line)) return;
      if (!isUtf8(line)) {
        lines.then(() => h.onFrameError(new A4aaError("invalid_utf8", "transport", "the line is not valid UTF-8")));
        return;
      }
      lines.push(line.toString("utf8"), line.length >= BIG_LINE_BYTES);
    },
  });
  return {
    push: (chunk) => reader.push(chunk),
    end: () => reader.end(),
    afterLines: (fn) => lines.then(fn),
  };
}

/** Reads `input` to its end, line by line. Returns a function that stops reading. */
export function readFrames(input: Readable, maxLineBytes: number, h: FrameHandlers): () => void {
  const lines = parser(maxLineBytes, h, false);
  let ended = false;
  const onData = (chunk: Buffer) => lines.push(chunk);
  const finish = () => {
    if (ended) return;
    ended = true;
    input.off("data", onData);
    lines.end();
    lines.afterLines(h.onEnd);
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
