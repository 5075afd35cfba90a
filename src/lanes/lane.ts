// The contract between the session layer and a lane. A lane starts and speaks to one
// kind of agent; it never writes to the host: it emits typed AgentEvents through its
// context and settles each turn with a TurnOutcome (or throws an A4aaError).
import type {
  AgentEvent,
  AgentInfo,
  AgentSpec,
  Capabilities,
  Lane,
  PermissionOption,
  PermissionPreset,
  PermissionRequest,
  SessionOptions,
  SessionPromptParams,
  SessionState,
  TurnOutcome,
} from "../../generated/ts/types.js";
import type { Logger } from "../log.js";
import type { PromptContent } from "./prompt-content.js";
import type { FlowGate } from "../transport/flow-gate.js";
import type { SharedPool } from "./shared-pool.js";
import type { SpawnWrapper } from "../supervise/spawn.js";

// The session counts what its close ended (R-SUP-6) without each lane passing it up.
export { countCleanup } from "../supervise/cleanup-count.js";

/** A turn as the host asked for it, without the session id. */
export type PromptRequest = Omit<SessionPromptParams, "sessionId">;

/**
 * A turn as a lane gets it: its content already checked against the lane's
 * `capabilities.content` (R-CONTENT-1/2); per-turn overrides are checked by `checkTurn`.
 */
export type TurnInput = Omit<PromptRequest, "text" | "content"> & PromptContent;

export interface LanePermissionOption extends PermissionOption {
  /** False for options a preset must never pick (Codex's structured decisions). Default true. */
  auto?: boolean;
}

/** A permission request as a lane hands it to the session's broker. */
export interface PermissionAsk extends Omit<PermissionRequest, "sessionId" | "options" | "raw"> {
  options: LanePermissionOption[];
  /** The agent's own request, forwarded to the host as `raw`. */
  raw: unknown;
}

export type PermissionDecision = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };

export type ResolvedOptions = SessionOptions & { permission: PermissionPreset };

export interface LaneContext<S extends AgentSpec = AgentSpec> {
  /** The sidecar's session id (events are emitted under it). */
  sessionId: string;
  spec: S;
  /** Absolute, existing working directory. */
  cwd: string;
  /** Exactly the environment the agent (and anything it asks the sidecar to run) gets. */
  env: Record<string, string>;
  /** The session's options, with the permission preset resolved. */
  options: ResolvedOptions;
  /** A native session id to continue. */
  resume?: string;
  /** How the sidecar introduces itself (spec.clientName ?? "a4aa"), and its version. */
  clientName: string;
  clientVersion: string;
  /** Most bytes accepted from the agent's stdout (per line on acp/rpc, per turn on cli). */
  maxOutputBytes: number;
  /** `serve --handshake-timeout`: the handshake deadline when the spec sets none. */
  handshakeTimeoutMs?: number;
  logger: Logger;
  /** Closed while the host is not reading: pause agent stdout readers on it. */
  gate: FlowGate;
  /** Streams an event to the host, in order. */
  emit(event: AgentEvent): void;
  /** The agent began another assistant message (TurnOutcome.text separates them). */
  newMessage?(): void;
  /**
   * Lets the preset or the host decide; never throws, fails closed to `cancelled`.
   * `signal` withdraws the request (the agent resolved it itself): it then settles `cancelled`.
   */
  askPermission(ask: PermissionAsk, signal?: AbortSignal): Promise<PermissionDecision>;
  /** Aborted when the session starts closing (also while `open` is still running). */
  signal: AbortSignal;
  /** The sidecar's shared processes (§13), for a spec with `share`. */
  pool?: SharedPool;
  /** Traced opens (R-OTEL-1): a handshake request to the agent began; call the result when it is answered. */
  traceStep?(method: string): (failed: boolean) => void;
  /**
   * R-SANDBOX-1: every process of the session runs wrapped (src/sandbox): `agent` for what the
   * host's spec starts, `terminal` for what the agent asks to run.
   */
  sandbox?: { agent: SpawnWrapper; terminal: SpawnWrapper };
}

/** What starting a shared process needs: the spec and environment, no session (agents/prewarm). */
export type ShareSetup = Pick<
  LaneContext,
  "spec" | "env" | "clientName" | "clientVersion" | "maxOutputBytes" | "handshakeTimeoutMs" | "logger" | "gate"
> & { pool: SharedPool };

export interface LaneSession {
  readonly nativeSessionId: string | null;
  readonly capabilities: Capabilities;
  readonly agentInfo: AgentInfo | null;
  readonly sessionState: SessionState | null;
  /** The session runs on a shared agent process (§13). */
  readonly shared?: boolean;
  /** False once the agent died: the session is then good only for `close` (R-SUP-2). */
  readonly alive: boolean;
  /** Rejects per-turn selectors the session cannot honour (unsupported_selector, stage prompt). */
  checkTurn(input: TurnInput): void;
  /**
   * Runs one turn. Resolves with the outcome or throws an A4aaError. After `cancel()` the
   * session layer reports `cancelled` whatever this settles with.
   */
  prompt(input: TurnInput): Promise<TurnOutcome>;
  /** Delivers a cancellation of the running turn to the agent; resolves once delivered. */
  cancel(): Promise<void>;
  /** Ends the agent's whole process tree. Resolves with whether nothing is left. */
  close(): Promise<{ clean: boolean; detail?: string }>;
}

export interface LaneDriver<S extends AgentSpec = AgentSpec> {
  readonly lane: Lane;
  /** The preset used when `options.permission` is absent. */
  defaultPermission(spec: S): PermissionPreset;
  /**
   * R-OPEN-1: rejects (unsupported_selector, stage open) what the lane cannot honour —
   * selectors, resume — before anything is spawned.
   */
  precheck(spec: S, options: ResolvedOptions, resume: string | undefined): void;
  /** Starts the agent and runs its handshake. Must stop everything it started if it fails. */
  open(ctx: LaneContext<S>): Promise<LaneSession>;
  /** agents/prewarm (§13): makes `count` shared processes for the spec live; absent when the lane cannot share. */
  prewarm?(setup: ShareSetup, count: number): Promise<{ processes: number; started: number }>;
}

export type AnyLaneDriver = LaneDriver<AgentSpec>;
