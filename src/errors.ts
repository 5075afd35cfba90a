// The one place a4aa errors are made. Every failure a host sees is an A4aaError turned
// into a JSON-RPC error whose `data` is the schema's ErrorData.
import type { ErrorCode, ErrorData, ErrorStage } from "../generated/ts/types.js";

/** JSON-RPC error codes by a4aa error code; everything else is -32000. */
const RPC_CODES: Partial<Record<ErrorCode, number>> = {
  invalid_params: -32602,
  unknown_session: -32001,
  frame_too_large: -32600,
  invalid_request: -32600,
  method_not_found: -32601,
  parse_error: -32700,
  invalid_utf8: -32700,
  internal_error: -32603,
};

const MESSAGES: Record<ErrorCode, string> = {
  invalid_params: "Invalid params",
  unknown_session: "Unknown session",
  unsupported_selector: "Unsupported selector",
  env_refused: "Environment refused",
  spawn_failed: "Spawn failed",
  initialize_failed: "Initialize failed",
  auth_required: "Authentication required",
  turn_in_progress: "Turn in progress",
  session_closing: "Session closing",
  session_closed: "Session closed",
  agent_exited: "Agent exited",
  agent_failed: "Agent failed",
  agent_protocol_error: "Agent protocol error",
  output_limit: "Output limit exceeded",
  cleanup_failed: "Cleanup failed",
  peer_closed: "Peer closed",
  frame_too_large: "Frame too large",
  parse_error: "Parse error",
  invalid_utf8: "Invalid UTF-8",
  invalid_request: "Invalid Request",
  method_not_found: "Method not found",
  internal_error: "Internal error",
  unknown_agent: "Unknown agent",
};

/** Codes that mean "try the same call again later". */
const RETRYABLE = new Set<ErrorCode>(["turn_in_progress", "cleanup_failed"]);

export interface RpcErrorObject {
  code: number;
  message: string;
  data: ErrorData;
}

export class A4aaError extends Error {
  readonly code: ErrorCode;
  readonly stage: ErrorStage;
  readonly retryable: boolean;
  readonly uncertainEffect: boolean;
  readonly detail?: string;

  constructor(
    code: ErrorCode,
    stage: ErrorStage,
    detail?: string,
    opts: { retryable?: boolean; uncertainEffect?: boolean } = {},
  ) {
    super(detail ? `${MESSAGES[code]}: ${detail}` : MESSAGES[code]);
    this.name = "A4aaError";
    this.code = code;
    this.stage = stage;
    this.detail = detail;
    this.retryable = opts.retryable ?? RETRYABLE.has(code);
    this.uncertainEffect = opts.uncertainEffect ?? false;
  }

  get rpcCode(): number {
    return RPC_CODES[this.code] ?? -32000;
  }

  toData(): ErrorData {
    const data: ErrorData = {
      code: this.code,
      stage: this.stage,
      retryable: this.retryable,
      uncertainEffect: this.uncertainEffect,
    };
    if (this.detail !== undefined) data.detail = this.detail;
    return data;
  }

  toRpcError(): RpcErrorObject {
    return { code: this.rpcCode, message: MESSAGES[this.code], data: this.toData() };
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

// Constructors for the errors raised in more than one place.
export const errors = {
  invalidParams: (detail: string) => new A4aaError("invalid_params", "transport", detail),
  unknownSession: (sessionId: unknown, stage: ErrorStage) =>
    new A4aaError("unknown_session", stage, `no session ${JSON.stringify(sessionId)}`),
  unsupportedSelector: (stage: ErrorStage, detail: string) => new A4aaError("unsupported_selector", stage, detail),
  envRefused: (detail: string) => new A4aaError("env_refused", "spawn", detail),
  spawnFailed: (detail: string) => new A4aaError("spawn_failed", "spawn", detail),
  peerClosed: (stage: ErrorStage, detail = "the transport closed before an answer arrived") =>
    new A4aaError("peer_closed", stage, detail),
  agentExited: (stage: ErrorStage, detail: string) =>
    new A4aaError("agent_exited", stage, detail, { uncertainEffect: true }),
  agentFailed: (stage: ErrorStage, detail: string, uncertainEffect = true) =>
    new A4aaError("agent_failed", stage, detail, { uncertainEffect }),
  agentProtocol: (stage: ErrorStage, detail: string) =>
    new A4aaError("agent_protocol_error", stage, detail, { uncertainEffect: stage === "prompt" }),
  outputLimit: (stage: ErrorStage, limit: number) =>
    new A4aaError("output_limit", stage, `the agent wrote more than maxOutputBytes (${limit} bytes) to stdout`, {
      uncertainEffect: stage === "prompt",
    }),
};
