// The handshake deadline of every lane (an own acp/rpc process, a session on a shared one,
// a stream-json CLI): how long it is, and the one error its expiry is reported with.
import path from "node:path";
import { DEFAULTS } from "../../generated/ts/limits.js";
import { errors, type A4aaError } from "../errors.js";
import type { LaneContext } from "./lane.js";

/** How long an agent has to complete its handshake when neither spec nor `serve` says. */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS: number = DEFAULTS.AcpAgentSpec.handshakeTimeoutMs;

/** The handshake's deadline: the spec's `handshakeTimeoutMs`, else `serve --handshake-timeout`, else the default. */
export function handshakeDeadlineMs(ctx: Pick<LaneContext, "spec" | "handshakeTimeoutMs">): number {
  return (ctx.spec as { handshakeTimeoutMs?: number }).handshakeTimeoutMs ?? ctx.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
}

export interface HandshakeTimeout {
  /** How logs and errors name the agent ("the agent", "codex app-server", "the shared agent"). */
  name: string;
  /** The program started (only its base name is shown). */
  program: string;
  ms: number;
  /** The handshake request still unanswered, if known. */
  awaiting?: string | null;
  /** How to start the agent in the mode its lane speaks ("`codex app-server`"). */
  modeHint: string;
  /** False when the process goes on (a session's handshake on a shared process). */
  stopped: boolean;
  /** What the agent printed on stdout that is not the protocol ("" when nothing). */
  noise?: string;
  /** The agent's stderr tail. */
  stderrTail: string;
}

/**
 * The handshake did not complete in time: initialize_failed at stage initialize, retryable
 * (a slow start may succeed next time) and of uncertain effect (the agent had our lines as
 * input: it may have acted). The detail names the agent, the deadline and the request left
 * unanswered, says how to fix it, and carries what the agent printed.
 */
export function handshakeTimeoutError(t: HandshakeTimeout): A4aaError {
  const waiting = t.awaiting ? ` (no answer to ${t.awaiting})` : "";
  const after = t.stopped ? " and was stopped" : "; the shared process goes on";
  const tail = t.stderrTail.trimEnd();
  const detail =
    `${t.name} (${path.basename(t.program)}) did not complete the handshake within ${t.ms} ms${waiting}${after}. ` +
    `Check that the command starts the agent in the mode its lane speaks (${t.modeHint}); ` +
    `a slow agent needs a larger handshakeTimeoutMs or --handshake-timeout.` +
    (t.noise ?? "") +
    (tail ? `\nstderr tail:\n${tail}` : "\n(no stderr output)");
  return errors.initializeFailed("initialize", detail, { retryable: true, uncertainEffect: true });
}
