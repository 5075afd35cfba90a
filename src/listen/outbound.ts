// The writing side of a remote connection (R-REMOTE-7): a Writable that never pushes back on
// the connection's NDJSON writer (so a slow remote host never pauses agents), hands what is
// written to the socket, and closes the connection once more than its bound is waiting to go
// out: the host catches up with session/attach.
import { Writable } from "node:stream";

export const DEFAULT_MAX_OUTBOUND_BYTES = 16 * 1024 * 1024;

export interface OutboundSink {
  /** Sends one NDJSON line's JSON (WebSocket: one text frame) or raw bytes (unix socket). */
  send(text: string): void;
  /** Bytes handed over and not yet written to the network. */
  pending(): number;
  /** Closes the connection because it fell behind. */
  slow(): void;
}

/**
 * `framed`: the writer's lines become one message each (WebSocket), else the text goes out
 * as written (unix socket, NDJSON).
 */
export function boundedOutput(sink: OutboundSink, maxBytes: number, framed: boolean): Writable {
  let partial = "";
  let over = false;
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, cb) {
      if (over) return cb();
      const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
      if (!framed) sink.send(text);
      else {
        let start = 0;
        for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
          const line = text.slice(start, nl);
          sink.send(partial ? partial + line : line);
          partial = "";
          start = nl + 1;
        }
        if (start < text.length) partial += text.slice(start);
      }
      if (sink.pending() > maxBytes) {
        over = true;
        sink.slow();
      }
      cb();
    },
  });
}
