// A JSON-RPC link to an agent process over its stdin/stdout: an NdjsonPeer bounded by
// maxOutputBytes, paused while the host is not reading, and what to do with lines that
// are not JSON-RPC. Used by every lane whose agent speaks JSON-RPC (acp, rpc).
import type { Readable, Writable } from "node:stream";
import { RpcErrorCode } from "../errors.js";
import { RpcHandlerError, type JsonRpcPeer, type PeerOptions } from "./json-rpc.js";
import { NdjsonPeer, type BadLineKind, type NdjsonPeerOptions } from "./ndjson-peer.js";
import type { FlowGate } from "./flow-gate.js";

/**
 * Why a stdout line was not taken as a message: one of NdjsonPeer's bad lines, or
 * `invalid` (JSON, but not JSON-RPC). `too_deep` lines are never parsed (R-HOSTILE-1).
 */
export type NoiseKind = Exclude<BadLineKind, "frame_too_large" | "invalid_utf8"> | "invalid";

export interface AgentLinkOptions
  extends Pick<PeerOptions, "onRequest" | "onNotification" | "requireVersion" | "writeVersion" | "onUnmatchedResponse">,
    Pick<NdjsonPeerOptions, "parseCommon"> {
  stdin: Writable;
  stdout: Readable;
  /** Most bytes one line may hold. */
  maxLineBytes: number;
  /** Closed while the host is not reading: stdout is paused meanwhile. */
  gate: FlowGate;
  /** A stdout line that is not a JSON-RPC message (noise, a log line, a too-deep message). */
  onNoise: (line: string, reason: string, kind: NoiseKind) => void;
  /** A stdout line longer than maxLineBytes (it was discarded). */
  onOverflow: (bytes: number) => void;
  /** stdout ended. */
  onEnd?: () => void;
  /** Sees every line: "in" read from stdout, "out" written to stdin (a transcript's tap). */
  onLine?: (dir: "in" | "out", line: string) => void;
}

export class AgentLink {
  private readonly link: NdjsonPeer;

  constructor(o: AgentLinkOptions) {
    this.link = new NdjsonPeer({
      input: o.stdout,
      output: o.stdin,
      maxLineBytes: o.maxLineBytes,
      // Agents' bytes are passed on as they decode; only the host link refuses bad UTF-8.
      checkUtf8: false,
      objectsOnly: true,
      parseCommon: o.parseCommon,
      // Unbatched: the stop ladder may end stdin right after a write. A big message (a
      // 64 MiB prompt) still goes out a slice at a time, in order with what follows it.
      batchWrites: false,
      gate: o.gate,
      onRequest: o.onRequest,
      onNotification: o.onNotification,
      // What a handler threw: its own JSON-RPC error, or an internal error with the message.
      toRpcError: (e: unknown) => (e instanceof RpcHandlerError ? e.toRpcError() : { code: RpcErrorCode.InternalError, message: (e as Error)?.message ?? String(e) }),
      onUnmatchedResponse: o.onUnmatchedResponse,
      invalidRequest: (reason) => ({ code: RpcErrorCode.InvalidRequest, message: `Invalid Request: ${reason}` }),
      requireVersion: o.requireVersion,
      writeVersion: o.writeVersion,
      allowBatch: false,
      // The value is depth-checked: serialising it again cannot overflow.
      onInvalid: (reason, msg) => o.onNoise(JSON.stringify(msg), reason, "invalid"),
      onBadLine: (bad) => {
        if (bad.kind === "frame_too_large") o.onOverflow(bad.bytes!);
        else if (bad.kind === "not_object") o.onNoise(bad.text!, "not a JSON object", "not_object");
        else if (bad.kind === "parse_error") o.onNoise(bad.text!, "not JSON", "parse_error");
        else if (bad.kind === "too_deep") o.onNoise(bad.text!, bad.detail, "too_deep");
      },
      onEnd: o.onEnd,
      onLine: o.onLine,
      // A dead agent's stdin: its exit is what the lane acts on.
      onWriteError: () => undefined,
    });
  }

  get peer(): JsonRpcPeer {
    return this.link.rpc;
  }

  request<R = unknown>(method: string, params?: unknown, opts?: Parameters<JsonRpcPeer["request"]>[2]): Promise<R> {
    return this.link.request<R>(method, params, opts);
  }

  notify(method: string, params?: unknown): void {
    this.link.notify(method, params);
  }

  /** Fails every pending request with `error`; the link sends nothing more. */
  close(error: Error): void {
    this.link.close(error);
  }
}
