// The error every failed call rejects with.
import type { ErrorCode, ErrorStage } from "../../generated/ts/types.js";
import { RpcErrorCode } from "../../generated/ts/errors.js";

/**
 * A failed call: the sidecar's JSON-RPC error with its a4aa data, or one this client made up
 * when the connection ended (`code: "peer_closed"`). `code` is "" when the sidecar sent no
 * a4aa data; `uncertainEffect`: the agent may have acted before the failure.
 */
export class A4aaError extends Error {
  readonly rpcCode: number;
  readonly code: ErrorCode | "";
  readonly stage: ErrorStage | "";
  readonly retryable: boolean;
  readonly uncertainEffect: boolean;
  readonly detail: string | undefined;
  readonly data: unknown;

  constructor(
    rpcCode: number,
    message: string,
    d: { code?: string; stage?: string; retryable?: boolean; uncertainEffect?: boolean; detail?: string; data?: unknown } = {},
  ) {
    const flags = [d.retryable ? ", retryable" : "", d.uncertainEffect ? ", uncertain effect" : ""].join("");
    super(`${message}${d.code ? ` (${d.code}, stage ${d.stage}${flags})` : ""}${d.detail && d.detail !== message ? `: ${d.detail}` : ""}`);
    this.name = "A4aaError";
    this.rpcCode = rpcCode;
    this.code = (d.code ?? "") as ErrorCode | "";
    this.stage = (d.stage ?? "") as ErrorStage | "";
    this.retryable = d.retryable === true;
    this.uncertainEffect = d.uncertainEffect === true;
    this.detail = d.detail;
    this.data = d.data;
  }

  /** Reads a JSON-RPC error object leniently: codes and stages this client does not know are kept. */
  static fromWire(error: unknown): A4aaError {
    if (!error || typeof error !== "object") return new A4aaError(RpcErrorCode.InternalError, `malformed error response: ${JSON.stringify(error)}`);
    const e = error as { code?: unknown; message?: unknown; data?: unknown };
    const d = (e.data && typeof e.data === "object" ? e.data : {}) as Record<string, unknown>;
    return new A4aaError(typeof e.code === "number" ? e.code : RpcErrorCode.InternalError, typeof e.message === "string" ? e.message : "", {
      code: typeof d.code === "string" ? d.code : undefined,
      stage: typeof d.stage === "string" ? d.stage : undefined,
      retryable: d.retryable === true,
      uncertainEffect: d.uncertainEffect === true,
      detail: typeof d.detail === "string" ? d.detail : undefined,
      data: e.data,
    });
  }

  /** The error of a call the connection ended under; a sent call may have acted. */
  static peerClosed(sent: boolean, why: string): A4aaError {
    return new A4aaError(RpcErrorCode.AdapterError, `the sidecar connection is closed: ${why}`, { code: "peer_closed", stage: "transport", uncertainEffect: sent });
  }
}
