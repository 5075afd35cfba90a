// Writes one JSON message per line to a stream, in order, never dropping one. When the
// reader of the stream falls behind, the writer's FlowGate closes so that producers
// (agent stdout readers) pause until the stream drains.
import type { Writable } from "node:stream";

type Listener = (open: boolean) => void;

/** Open while the consumer keeps up; producers pause while it is closed. */
export class FlowGate {
  private closed = false;
  private listeners = new Set<Listener>();

  get open(): boolean {
    return !this.closed;
  }

  set(open: boolean): void {
    if (open === !this.closed) return;
    this.closed = !open;
    for (const l of [...this.listeners]) l(open);
  }

  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Pauses `stream` whenever `gate` closes and resumes it when it opens; returns the detach function. */
export function pauseWithGate(gate: FlowGate, stream: { pause(): unknown; resume(): unknown }): () => void {
  if (!gate.open) stream.pause();
  return gate.subscribe((open) => (open ? stream.resume() : stream.pause()));
}

/** Lines up to this size are coalesced; bigger ones are written on their own. */
const BIG_LINE = 1 << 20;
/** A batch is written at the latest when it holds this many characters. */
const BATCH_CHARS = 256 * 1024;

export class NdjsonWriter {
  readonly gate = new FlowGate();
  private closed = false;
  private bytesWritten = 0;
  // Lines written in the same tick go out as one write (one syscall instead of one per
  // line: a stream of small events costs a fraction of the CPU). Order is kept: a batch
  // is flushed before anything else is written, at the end of the current microtask run.
  private batch: string[] = [];
  private batchChars = 0;
  private scheduled = false;
  private readonly flushBatchSoon = () => {
    this.scheduled = false;
    this.flushBatch();
  };

  constructor(private readonly stream: Writable) {
    stream.on("drain", () => this.gate.set(true));
    // A host that went away must not crash the sidecar: shutdown is driven by stdin EOF.
    stream.on("error", () => {
      this.closed = true;
      this.batch = [];
      this.batchChars = 0;
      this.gate.set(true);
    });
  }

  get written(): number {
    return this.bytesWritten;
  }

  /** Serialises and writes `msg` followed by `\n`. */
  write(msg: unknown): void {
    this.writeLine(JSON.stringify(msg));
  }

  /** Writes an already serialised message (one line of JSON, no `\n`). */
  writeLine(json: string): void {
    if (this.closed) return;
    this.bytesWritten += json.length + 1;
    if (json.length > BIG_LINE) {
      this.flushBatch();
      // Two writes for big payloads avoid copying a 64 MiB string just to append "\n".
      this.stream.write(json);
      if (!this.stream.write("\n")) this.gate.set(false);
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
    if (!this.batch.length || this.closed) return;
    const text = this.batch.length === 1 ? this.batch[0] + "\n" : this.batch.join("\n") + "\n";
    this.batch = [];
    this.batchChars = 0;
    if (!this.stream.write(text)) this.gate.set(false);
  }

  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void> {
    this.flushBatch();
    if (this.closed || this.stream.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.stream.off("drain", done);
        this.stream.off("error", done);
        this.stream.off("close", done);
        resolve();
      };
      this.stream.on("drain", done);
      this.stream.on("error", done);
      this.stream.on("close", done);
    });
  }
}
