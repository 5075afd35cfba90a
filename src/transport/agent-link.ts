// A JSON-RPC link to an agent process over its stdin/stdout: the line reader (bounded
// by maxOutputBytes), the peer, host backpressure, and what to do with lines that are
// not JSON-RPC. Used by every lane whose agent speaks JSON-RPC (acp, rpc).
import type { Readable, Writable } from "node:stream";
import { JsonRpcPeer, RpcHandlerError, needsSourceText, type PeerOptions } from "./json-rpc.js";
import { BIG_LINE_BYTES, LineSequencer, SKIP } from "./big-lines.js";
import { LineReader, isBlank } from "./line-reader.js";
import { NdjsonWriter, pauseWithGate, type FlowGate } from "./ndjson-writer.js";

export interface AgentLinkOptions
  extends Pick<PeerOptions, "onRequest" | "onNotification" | "requireVersion" | "writeVersion" | "onUnmatchedResponse"> {
  stdin: Writable;
  stdout: Readable;
  /** Most bytes one line may hold. */
  maxLineBytes: number;
  /** Closed while the host is not reading: stdout is paused meanwhile. */
  gate: FlowGate;
  /** A stdout line that is not a JSON-RPC message (noise, a log line). */
  onNoise: (line: string, reason: string) => void;
  /** A stdout line longer than maxLineBytes (it was discarded). */
  onOverflow: (bytes: number) => void;
  /** stdout ended. */
  onEnd?: () => void;
}

export class AgentLink {
  readonly peer: JsonRpcPeer;
  private readonly detachGate: () => void;
  private ended = false;

  constructor(private readonly o: AgentLinkOptions) {
    // Unbatched: the stop ladder may end stdin right after a write. A big message (a
    // 64 MiB prompt) still goes out a slice at a time, in order with what follows it.
    const writer = new NdjsonWriter(o.stdin, { batch: false });
    this.peer = new JsonRpcPeer({
      sendLine: (line) => writer.writeLine(line),
      sendMessage: (msg, raw) => writer.writeMessage(msg, raw),
      onRequest: o.onRequest,
      onNotification: o.onNotification,
      // What a handler threw: its own JSON-RPC error, or -32603 with the message.
      toRpcError: (e: unknown) => (e instanceof RpcHandlerError ? e.toRpcError() : { code: -32603, message: (e as Error)?.message ?? String(e) }),
      onUnmatchedResponse: o.onUnmatchedResponse,
      invalidRequest: (reason) => ({ code: -32600, message: `Invalid Request: ${reason}` }),
      requireVersion: o.requireVersion,
      writeVersion: o.writeVersion,
      allowBatch: false,
      onInvalid: (reason, msg) => o.onNoise(JSON.stringify(msg), reason),
    });
    const lines = new LineSequencer({
      parse: (text) => {
        // Fast path: a JSON-RPC message is an object.
        if (text.charCodeAt(0) !== 123 /* { */) {
          o.onNoise(text, "not a JSON object");
          return SKIP;
        }
        try {
          return JSON.parse(text);
        } catch {
          o.onNoise(text, "not JSON");
          return SKIP;
        }
      },
      needsText: needsSourceText,
      deliver: (value, text) => this.peer.handle(value, text),
    });
    const reader = new LineReader({
      maxLineBytes: o.maxLineBytes,
      onOversize: (bytes) => lines.then(() => o.onOverflow(bytes)),
      onLine: (line) => {
        if (line.length === 0 || isBlank(line)) return;
        lines.push(line.toString("utf8"), line.length >= BIG_LINE_BYTES);
      },
    });
    o.stdout.on("data", (chunk: Buffer) => reader.push(chunk));
    const end = () => {
      if (this.ended) return;
      this.ended = true;
      reader.end();
      lines.then(() => {
        this.detachGate();
        o.onEnd?.();
      });
    };
    o.stdout.once("end", end);
    o.stdout.once("close", end);
    this.detachGate = pauseWithGate(o.gate, o.stdout);
  }

  request<R = unknown>(method: string, params?: unknown, opts?: Parameters<JsonRpcPeer["request"]>[2]): Promise<R> {
    return this.peer.request<R>(method, params, opts);
  }

  notify(method: string, params?: unknown): void {
    this.peer.notify(method, params);
  }

  /** Fails every pending request with `error`; the link sends nothing more. */
  close(error: Error): void {
    this.peer.close(error);
    this.detachGate();
  }
}
