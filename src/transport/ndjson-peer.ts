// The one NDJSON JSON-RPC peer: a JsonRpcPeer (both roles: it answers requests and sends
// its own) over a readable/writable pair. Lines are read with a byte limit (a longer one
// is discarded as it streams by), checked (UTF-8, nesting depth), parsed and handed over
// in the order they came — big lines too; what is written keeps its order, a big message
// streams out a slice at a time, and the writer's gate tells producers to pause. Used by
// the server (host link), every agent link, the example agent, clients/ts and the demo.
import { isUtf8 } from "node:buffer";
import type { Readable, Writable } from "node:stream";
import { BIG_LINE_BYTES, LineSequencer, SKIP } from "./line-sequencer.js";
import { MAX_JSON_DEPTH, parseJsonChecked } from "./depth.js";
import { JsonRpcPeer, needsSourceText, type PeerOptions, type RequestOptions } from "./json-rpc.js";
import { LineReader, isBlank } from "./line-reader.js";
import { pauseWithGate, type FlowGate } from "./flow-gate.js";
import { NdjsonWriter } from "./ndjson-writer.js";
import { rawMembers } from "./raw-id.js";

/** Why a line is not a message. */
export type BadLineKind = "frame_too_large" | "invalid_utf8" | "parse_error" | "too_deep" | "not_object";

export interface BadLine {
  kind: BadLineKind;
  /** For the person reading the log. */
  detail: string;
  /** The line's text (absent for frame_too_large and invalid_utf8). */
  text?: string;
  /** too_deep: the raw text of the `id` of a request (a string or a number), to answer it by. */
  rawId?: string;
  /** frame_too_large: the line's length in bytes. */
  bytes?: number;
}

export interface NdjsonPeerOptions extends Omit<PeerOptions, "sendLine" | "sendMessage"> {
  input: Readable;
  output: Writable;
  /** Most bytes one incoming line may hold. */
  maxLineBytes: number;
  /** Deepest nesting an incoming message may have (default MAX_JSON_DEPTH). */
  maxDepth?: number;
  /** Refuse lines that are not UTF-8 (else they are decoded with U+FFFD). */
  checkUtf8: boolean;
  /**
   * A cheaper parser for the line most often seen: the value JSON.parse would give, or
   * undefined (then the line is depth-checked and parsed as any other).
   */
  parseCommon?: (text: string) => unknown;
  /** Lines that do not start with `{` are bad lines (`not_object`), not handed to the peer. */
  objectsOnly?: boolean;
  /** Coalesce the lines of one tick into one write (default true); see NdjsonWriter. */
  batchWrites?: boolean;
  /** A line that is not a message; the stream goes on. */
  onBadLine: (bad: BadLine) => void;
  /** Sees every line, both ways (transcripts, wire assertions, `a4aa demo --wire`). */
  onLine?: (dir: "in" | "out", line: string) => void;
  /** Every parsed message (or batch), before the peer handles it. */
  onMessage?: (value: unknown) => void;
  /** Input is paused while this gate is closed (the host is not reading). */
  gate?: FlowGate;
  /** The input ended and every line before the end has been handled. */
  onEnd?: () => void;
  /** Writing failed (EPIPE, ENOBUFS): nothing more goes out. */
  onWriteError?: (error: Error) => void;
  /** Sees each message (or batch) right after it was handed to the writer, before anything else is written. */
  onSent?: (msg: unknown) => void;
}

export class NdjsonPeer {
  readonly rpc: JsonRpcPeer;
  readonly writer: NdjsonWriter;
  private readonly reader: LineReader;
  private readonly lines: LineSequencer;
  private readonly detachGate: () => void;
  private ended = false;

  constructor(private readonly o: NdjsonPeerOptions) {
    this.writer = new NdjsonWriter(o.output, {
      batch: o.batchWrites ?? true,
      onError: o.onWriteError,
      onLine: o.onLine && ((line) => o.onLine!("out", line)),
    });
    const writer = this.writer;
    this.rpc = new JsonRpcPeer({
      ...o,
      sendLine: (line) => writer.writeLine(line),
      sendMessage: o.onSent
        ? (msg, raw) => {
            writer.writeMessage(msg, raw);
            o.onSent!(msg);
          }
        : (msg, raw) => writer.writeMessage(msg, raw),
    });
    const maxDepth = o.maxDepth ?? MAX_JSON_DEPTH;
    this.lines = new LineSequencer({
      parse: (text) => {
        o.onLine?.("in", text.length < 1 << 20 ? text : `<${text.length} chars>`);
        const first = text.charCodeAt(0);
        if (o.objectsOnly && first !== 123 /* { */) {
          o.onBadLine({ kind: "not_object", detail: "not a JSON object", text });
          return SKIP;
        }
        const common = o.parseCommon?.(text);
        if (common !== undefined) return common;
        // Depth-checked before JSON.parse: nothing recursive may ever see a deeper value.
        const r = parseJsonChecked(text, maxDepth);
        if (r.ok) return r.value;
        o.onBadLine(r.kind === "too_deep" ? { kind: r.kind, detail: r.detail, text, rawId: requestId(text) } : { kind: r.kind, detail: r.detail, text });
        return SKIP;
      },
      needsText: needsSourceText,
      deliver: o.onMessage
        ? (value, text) => {
            o.onMessage!(value);
            this.rpc.handle(value, text);
          }
        : (value, text) => this.rpc.handle(value, text),
    });
    const lines = this.lines;
    this.reader = new LineReader({
      maxLineBytes: o.maxLineBytes,
      onOversize: (bytes) =>
        lines.then(() =>
          o.onBadLine({ kind: "frame_too_large", bytes, detail: `a line of ${bytes} bytes exceeds the ${o.maxLineBytes}-byte limit; it was discarded` }),
        ),
      onLine: (line) => {
        if (line.length === 0 || isBlank(line)) return;
        if (o.checkUtf8 && !isUtf8(line)) {
          lines.then(() => o.onBadLine({ kind: "invalid_utf8", detail: "the line is not valid UTF-8" }));
          return;
        }
        lines.push(line.toString("utf8"), line.length >= BIG_LINE_BYTES);
      },
    });
    o.input.on("data", this.onData);
    o.input.once("end", this.finish);
    o.input.once("close", this.finish);
    o.input.once("error", this.finish);
    this.detachGate = o.gate ? pauseWithGate(o.gate, o.input) : () => undefined;
  }

  private readonly onData = (chunk: Buffer) => this.reader.push(chunk);

  private readonly finish = () => {
    if (this.ended) return;
    this.ended = true;
    this.o.input.off("data", this.onData);
    this.reader.end();
    this.lines.then(() => {
      this.detachGate();
      this.o.onEnd?.();
    });
  };

  get pendingCount(): number {
    return this.rpc.pendingCount;
  }

  request<R = unknown>(method: string, params?: unknown, opts?: RequestOptions): Promise<R> {
    return this.rpc.request<R>(method, params, opts);
  }

  notify(method: string, params?: unknown): void {
    this.rpc.notify(method, params);
  }

  /** Writes a message as it is (an answer to a bad line, a test's hand-made message). */
  write(msg: unknown): void {
    this.writer.write(msg);
  }

  /** Writes one line as it is (no `\n`): for tests and misbehaving fixtures. */
  writeLine(line: string): void {
    this.writer.writeLine(line);
  }

  /** Stops reading: later input is left unread. */
  stopReading(): void {
    this.o.input.off("data", this.onData);
    this.o.input.pause();
  }

  /** Fails every pending request with `error`; requests made later fail with it too. */
  close(error: Error): void {
    this.rpc.close(error);
    this.detachGate();
  }

  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void> {
    return this.writer.flush();
  }
}

/** The raw id of a too-deep line that is a request (`method` a string, `id` a string or number). */
function requestId(text: string): string | undefined {
  let m: Map<string, string>;
  try {
    m = rawMembers(text, 0, "id", "method");
  } catch {
    return undefined;
  }
  const id = m.get("id");
  const method = m.get("method");
  if (id === undefined || method === undefined || id.length > 1024 || method.charCodeAt(0) !== 34) return undefined;
  try {
    const v: unknown = JSON.parse(id);
    return typeof v === "string" || typeof v === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}
