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

export class NdjsonWriter {
  readonly gate = new FlowGate();
  private closed = false;
  private bytesWritten = 0;

  constructor(private readonly stream: Writable) {
    stream.on("drain", () => this.gate.set(true));
    // A host that went away must not crash the sidecar: shutdown is driven by stdin EOF.
    stream.on("error", () => {
      this.closed = true;
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
    // Two writes for big payloads avoid copying a 64 MiB string just to append "\n".
    const ok = json.length > 1 << 20 ? (this.stream.write(json), this.stream.write("\n")) : this.stream.write(json + "\n");
    if (!ok) this.gate.set(false);
  }

  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void> {
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
