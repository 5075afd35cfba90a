// The writing side of a remote connection (R-REMOTE-7): a Writable that never pushes back on
// the connection's NDJSON writer (so a slow remote host never pauses agents), hands what is
// written to the socket, and closes the connection once more than its bound is waiting to go
// out: the host catches up with session/attach.
import { Writable } from "node:stream";

export const DEFAULT_MAX_OUTBOUND_BYTES = 16 * 1024 * 1024;
/** How long a connection may stay past its bound (one big message to a fast reader does, briefly). */
export const SLOW_GRACE_MS = 1000;
/** Past the bound by more than the largest frame: slow at once. */
const HARD_EXTRA_BYTES = 64 * 1024 * 1024;

export interface OutboundSink {
  /** Sends one NDJSON line's JSON (WebSocket: one text frame) or raw bytes (unix socket). */
  send(text: string): void;
  /** `framed`: sends the lines of one write, each one message, in order (else `send` each). */
  sendLines?(lines: string[]): void;
  /** Bytes handed over and not yet written to the network. */
  pending(): number;
  /** Closes the connection because it fell behind. */
  slow(): void;
}

/**
 * `framed`: the writer's lines become one message each (WebSocket), else the text goes out
 * as written (unix socket, NDJSON).
 */
export function boundedOutput(sink: OutboundSink, maxBytes: number, framed: boolean, graceMs = SLOW_GRACE_MS): Writable {
  let partial = "";
  let over = false;
  let timer: NodeJS.Timeout | undefined;
  const tooSlow = () => {
    if (over) return;
    over = true;
    if (timer) clearTimeout(timer);
    sink.slow();
  };
  return new Writable({
    decodeStrings: false,
    destroy(err, cb) {
      if (timer) clearTimeout(timer);
      cb(err);
    },
    write(chunk: string | Buffer, _enc, cb) {
      if (over) return cb();
      const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
      if (!framed) sink.send(text);
      else {
        const lines: string[] = [];
        let start = 0;
        for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
          const line = text.slice(start, nl);
          lines.push(partial ? partial + line : line);
          partial = "";
          start = nl + 1;
        }
        if (start < text.length) partial += text.slice(start);
        if (sink.sendLines) {
          if (lines.length) sink.sendLines(lines);
        } else for (const line of lines) sink.send(line);
      }
      const pending = sink.pending();
      if (pending > maxBytes + HARD_EXTRA_BYTES) tooSlow();
      else if (pending > maxBytes && !timer) {
        // Still past the bound after the grace period: the reader is not keeping up.
        timer = setTimeout(() => {
          timer = undefined;
          if (sink.pending() > maxBytes) tooSlow();
        }, graceMs);
        timer.unref();
      }
      cb();
    },
  });
}
