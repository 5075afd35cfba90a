// The one place a4aa errors are made. Every failure a host sees is an A4aaError turned
// into a JSON-RPC error whose `data` is the schema's ErrorData. The codes, messages and
// default retryable come from the schema (ErrorCode's x-error-codes), generated.
import type { ErrorCode, ErrorData, ErrorStage } from "../generated/ts/types.js";
import { ERROR_CODES, RpcErrorCode, errorConstructors, type ErrorOptions } from "../generated/ts/errors.js";

export { RpcErrorCode };

/** A JSON-RPC error object, as any peer sends it; a4aa's own carry ErrorData. */
export interface RpcErrorObject<D = unknown> {
  code: number;
  message: string;
  data?: D;
}

/** A JSON-RPC error a handler answers a peer with (agents' requests, the example agent's). */
export class RpcHandlerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcHandlerError";
  }

  toRpcError(): RpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

export class A4aaError extends Error {
  readonly code: ErrorCode;
  readonly stage: ErrorStage;
  readonly retryable: boolean;
  readonly uncertainEffect: boolean;
  readonly detail?: string;
  readonly extra?: ErrorOptions["extra"];

  constructor(code: ErrorCode, stage: ErrorStage, detail?: string, opts: ErrorOptions = {}) {
    const { message } = ERROR_CODES[code];
    super(detail ? `${message}: ${detail}` : message);
    this.name = "A4aaError";
    this.code = code;
    this.stage = stage;
    this.detail = detail;
    this.retryable = opts.retryable ?? ERROR_CODES[code].retryable;
    this.uncertainEffect = opts.uncertainEffect ?? false;
    if (opts.extra) this.extra = opts.extra;
  }

  get rpcCode(): number {
    return ERROR_CODES[this.code].rpcCode;
  }

  toData(): ErrorData {
    const data: ErrorData = {
      code: this.code,
      stage: this.stage,
      retryable: this.retryable,
      uncertainEffect: this.uncertainEffect,
    };
    if (this.detail !== undefined) data.detail = this.detail;
    return this.extra ? { ...data, ...this.extra } : data;
  }

  toRpcError(): Required<RpcErrorObject<ErrorData>> {
    return { code: this.rpcCode, message: ERROR_CODES[this.code].message, data: this.toData() };
  }
}

export function isA4aaError(e: unknown): e is A4aaError {
  return e instanceof A4aaError;
}

/** Wraps anything thrown into an A4aaError: a4aa errors pass through, the rest is a bug. */
export function toA4aaError(e: unknown, stage: ErrorStage): A4aaError {
  if (e instanceof A4aaError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new A4aaError("internal_error", stage, msg);
}

// One constructor per error code (generated), and the shortcuts for the errors raised in
// more than one place whose detail or flags follow a rule.
export const errors = {
  ...errorConstructors((code, stage, detail, opts) => new A4aaError(code, stage, detail, opts)),
  unknownSession: (sessionId: unknown, stage: ErrorStage) =>
    new A4aaError("unknown_session", stage, `no session ${JSON.stringify(sessionId)}`),
  spawnFailed: (detail: string, opts?: ErrorOptions) => new A4aaError("spawn_failed", "spawn", detail, opts),
  peerClosed: (stage: ErrorStage, detail = "the transport closed before an answer arrived") =>
    new A4aaError("peer_closed", stage, detail),
  /** Uncertain effect unless the caller knows better (the agent died before it had the prompt). */
  agentExited: (stage: ErrorStage, detail: string, opts: ErrorOptions = { uncertainEffect: true }) =>
    new A4aaError("agent_exited", stage, detail, opts),
  agentFailed: (stage: ErrorStage, detail: string, uncertainEffect = true) =>
    new A4aaError("agent_failed", stage, detail, { uncertainEffect }),
  agentProtocol: (stage: ErrorStage, detail: string) =>
    new A4aaError("agent_protocol_error", stage, detail, { uncertainEffect: stage === "prompt" }),
  outputLimit: (stage: ErrorStage, limit: number) =>
    new A4aaError("output_limit", stage, `the agent wrote more than maxOutputBytes (${limit} bytes) to stdout`, {
      uncertainEffect: stage === "prompt",
    }),
};
