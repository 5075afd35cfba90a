// Writes one JSON message per line to a stream, in order, never dropping one. When the
// reader of the stream falls behind, the writer's FlowGate closes so that producers
// (agent stdout readers) pause until the stream drains.
import type { Writable } from "node:stream";
import { noteWritten, reclaimMemory } from "./reclaim.js";
import { hasBigString, jsonPieces, serialize, textSlices } from "./serialize.js";
import { FlowGate } from "./flow-gate.js";

// Kept for the session layer and the server, which import FlowGate from here.
export { FlowGate };

/** Lines up to this size are coalesced; bigger ones are streamed out in slices. */
const BIG_LINE = 1 << 20;
/** A batch is written at the latest when it holds this many characters. */
const BATCH_CHARS = 256 * 1024;

type Pending = string | { msg: unknown; raw: boolean };

export interface NdjsonWriterOptions {
  /**
   * Coalesce the lines of one tick into one write (default true). Off for agent stdin,
   * whose owner may end the stream right after a write.
   */
  batch?: boolean;
  /**
   * The stream failed (EPIPE, ENOBUFS): nothing more can be written. Called once; the
   * owner ends the link (R-HOSTILE-4: a sidecar that can no longer answer shuts down).
   */
  onError?: (error: Error) => void;
  /** Sees every line written (no `\n`); a big streamed line as `<N chars>`. */
  onLine?: (line: string) => void;
}

export class NdjsonWriter {
  readonly gate = new FlowGate();
  private closed = false;
  private bytesWritten = 0;
  private readonly batching: boolean;
  // Lines written in one run of JavaScript go out as one write, in a microtask once that
  // run is over: one syscall and one wake-up of the reader instead of one per line — a
  // stream of small events costs a fraction of the CPU. Order is kept: a batch is flushed
  // before anything else is written.
  private batch: string[] = [];
  private batchChars = 0;
  private scheduled = false;
  private readonly flushBatchSoon = () => {
    this.scheduled = false;
    this.flushBatch();
  };
  private readonly onLine: ((line: string) => void) | undefined;
  // A big line (a message holding a string of MiBs) streams out a slice at a time, the
  // next once the stream has drained: it is never whole in memory, neither serialised nor
  // encoded. Producers stay paused meanwhile (gate closed), and what is written after it
  // waits here, in order; messages wait unserialised.
  private queue: Pending[] | null = null;
  private idleWaiters: (() => void)[] = [];
  /** Continues a big line waiting for 'drain' (also on error, so that it winds up). */
  private resumeBig: (() => void) | null = null;

  constructor(
    private readonly stream: Writable,
    opts: NdjsonWriterOptions = {},
  ) {
    this.batching = opts.batch ?? true;
    this.onLine = opts.onLine;
    stream.on("drain", () => {
      if (this.queue === null) this.gate.set(true);
    });
    // Never an uncaught 'error': the owner hears of it once and ends the link.
    stream.on("error", (e: Error) => {
      if (this.closed) return;
      this.closed = true;
      this.batch = [];
      this.batchChars = 0;
      this.gate.set(true);
      this.resumeBig?.();
      opts.onError?.(e);
    });
  }

  get written(): number {
    return this.bytesWritten;
  }

  private get writable(): boolean {
    return !this.closed && !this.stream.destroyed && this.stream.writable;
  }

  /** Serialises and writes `msg` followed by `\n`. */
  write(msg: unknown): void {
    this.writeMessage(msg, false);
  }

  /**
   * Serialises and writes `msg` (`raw`: it holds RawJson ids to splice in). A message
   * holding a big string is serialised and written piecewise (see serialize.ts). While a
   * big line is in flight, the message waits unserialised (it must not change meanwhile).
   */
  writeMessage(msg: unknown, raw: boolean): void {
    if (!this.writable) return;
    if (this.queue !== null) this.queue.push({ msg, raw });
    else if (hasBigString(msg)) {
      this.flushBatch();
      this.streamBig(jsonPieces(msg, raw));
    } else this.writeLine(serialize(msg, raw));
  }

  /** Writes an already serialised message (one line of JSON, no `\n`). */
  writeLine(json: string): void {
    if (!this.writable) return;
    if (this.queue !== null) {
      this.queue.push(json);
      return;
    }
    if (json.length > BIG_LINE) {
      this.flushBatch();
      this.streamBig(textSlices(json));
      return;
    }
    this.bytesWritten += json.length + 1;
    noteWritten(json.length);
    this.onLine?.(json);
    if (!this.batching) {
      if (!this.stream.write(json + "\n")) this.gate.set(false);
      return;
    }
    this.batch.push(json);
    this.batchChars += json.length + 1;
    if (this.batchChars >= BATCH_CHARS) this.flushBatch();
    else if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(this.flushBatchSoon);
    }
  }

  private flushBatch(): void {
    if (!this.batch.length || !this.writable) return;
    const text = this.batch.length === 1 ? this.batch[0] + "\n" : this.batch.join("\n") + "\n";
    this.batch = [];
    this.batchChars = 0;
    if (!this.stream.write(text)) this.gate.set(false);
  }

  private streamBig(pieces: Iterator<string>): void {
    this.queue = [];
    this.gate.set(false);
    let chars = 0;
    const next = (): void => {
      this.resumeBig = null;
      while (this.writable) {
        const r = pieces.next();
        if (r.done) break;
        this.bytesWritten += r.value.length;
        chars += r.value.length;
        if (!this.stream.write(r.value)) {
          this.resumeBig = next;
          this.stream.once("drain", next);
          return;
        }
      }
      this.stream.off("drain", next);
      this.bytesWritten += 1;
      this.onLine?.(`<${chars} chars>`);
      if (this.writable && !this.stream.write("\n")) this.gate.set(false);
      else this.gate.set(true);
      const queued = this.queue ?? [];
      this.queue = null;
      // The big line's copies are garbage now; free them before the next one is built.
      reclaimMemory();
      for (let i = 0; i < queued.length; i++) {
        const p = queued[i];
        if (typeof p === "string") this.writeLine(p);
        else this.writeMessage(p.msg, p.raw);
        if (this.queue !== null) {
          // Another big line: the rest waits behind it.
          (this.queue as Pending[]).push(...queued.slice(i + 1));
          return;
        }
      }
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    };
    next();
  }

  /** Resolves once everything written so far has been handed to the OS. */
  async flush(): Promise<void> {
    this.flushBatch();
    while (this.queue !== null && this.writable) await new Promise<void>((r) => this.idleWaiters.push(r));
    this.flushBatch();
    if (!this.writable || this.stream.writableLength === 0) return;
    // 'drain' only comes after a write that returned false: an empty write's callback
    // comes after everything before it, in every case.
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off("close", done);
        resolve();
      };
      this.stream.once("close", done);
      this.stream.write("", done);
    });
  }
}
