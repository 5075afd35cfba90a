// The handshake deadline of every lane (an own acp/rpc process, a session on a shared one,
// a stream-json CLI): how long it is, and the one error its expiry is reported with.
import path from "node:path";
import { DEFAULTS } from "../../generated/ts/limits.js";
import type { AgentSpec } from "../../generated/ts/types.js";
import { errors, type A4aaError } from "../errors.js";
import { agentFamily } from "./credential-hints.js";
import type { LaneContext } from "./lane.js";

/** Agents that speak ACP only with a flag (measured: gemini-cli 0.61, qwen-code 0.15), the
 * flag first, then the other spellings they accept. */
const ACP_FLAGS: Record<string, string[]> = {
  gemini: ["--acp", "--experimental-acp"],
  qwen: ["--acp", "--experimental-acp"],
};

/** The sentence for a known agent started without the flag that makes it speak its lane's
 * protocol (`gemini` on the acp lane without `--acp`), else undefined. */
export function missingModeFlag(spec: AgentSpec): string | undefined {
  const family = agentFamily(spec);
  const flags = family ? ACP_FLAGS[family] : undefined;
  if (!flags || spec.lane !== "acp" || spec.command.args.some((a) => flags.includes(a))) return undefined;
  return `${family} speaks ACP only when started with ${flags[0]}, and command.args has none: add "${flags[0]}" to command.args.`;
}

/** The agent ended before its handshake: initialize_failed naming the missing flag when it is a
 * known agent started without it (whatever it printed then, e.g. Gemini's "Invalid auth method
 * selected."), else spawn_failed. */
export function exitedBeforeHandshake(spec: AgentSpec, detail: string): A4aaError {
  const flag = missingModeFlag(spec);
  return flag ? errors.initializeFailed("initialize", `${flag}\n${detail}`, { retryable: false, uncertainEffect: true }) : errors.spawnFailed(detail);
}

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
  /** The spec, to name a known agent's missing mode flag. */
  spec?: AgentSpec;
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
  const flag = t.spec && missingModeFlag(t.spec);
  const detail =
    (flag ? `${flag} ` : "") +
    `${t.name} (${path.basename(t.program)}) did not complete the handshake within ${t.ms} ms${waiting}${after}. ` +
    `Check that the command starts the agent in the mode its lane speaks (${t.modeHint}); ` +
    `a slow agent needs a larger handshakeTimeoutMs or --handshake-timeout.` +
    (t.noise ?? "") +
    (tail ? `\nstderr tail:\n${tail}` : "\n(no stderr output)");
  return errors.initializeFailed("initialize", detail, { retryable: true, uncertainEffect: true });
}
