// One agent process that speaks JSON-RPC on its stdio, as the acp and rpc lanes drive it:
// started on pipes, its link, its death (exit, an oversized line), requests that fail
// with the session's own errors, and its stop. A lane session composes one and adds its
// protocol; if the lane's handshake fails, everything started is stopped before the error
// goes up.
import { A4aaError, errors } from "../errors.js";
import { startPipe, type PipeProcess } from "../supervise/spawn.js";
import { lineTap, type LineTap } from "../supervise/taps.js";
import { AgentLink, type AgentLinkOptions } from "../transport/agent-link.js";
import { RpcResponseError } from "../transport/json-rpc.js";
import { exitedBeforeHandshake, handshakeDeadlineMs, handshakeTimeoutError } from "./handshake-deadline.js";
import type { LaneContext } from "./lane.js";
import { forwardStderr } from "./stderr-events.js";
import { whenStdoutEndsWithoutExit } from "./stdout-eof.js";

export type AgentPhase = "handshake" | "ready" | "closing";

/** Non-JSON stdout lines kept (outside turns) for an error's detail, and logged at warn. */
const NOISE_KEPT = 10;
const NOISE_WARNED = 20;
const NOISE_LINE_CHARS = 300;

/** The stage a request is made in: the handshake's requests are abandoned when the session closes. */
export type RequestStage = "initialize" | "prompt";

/** A request's session (on a shared process) and deadline. */
export interface AgentRequestOptions {
  session?: AbortSignal;
  timeoutMs?: number;
  onTimeout?: () => Error;
  /** Members beside `params` in the request (codex app-server's `trace`). */
  envelope?: Record<string, unknown>;
}

/** What the agent's error answer to a request means to the host. */
export type Refusal = (e: RpcResponseError) => A4aaError;

/** The one place a peer's error answer becomes an A4aaError; anything else passes unchanged. */
export function fromPeerError(e: unknown, refused: Refusal): unknown {
  return e instanceof RpcResponseError ? refused(e) : e;
}

export interface AgentProcessOptions
  extends Pick<AgentLinkOptions, "onRequest" | "onNotification" | "requireVersion" | "writeVersion" | "onUnmatchedResponse" | "parseCommon"> {
  /** How logs and errors name the agent ("the agent", "codex app-server"). */
  name: string;
  /** Whether a turn is running: the agent's stderr lines are streamed only then. */
  inTurn: () => boolean;
  /** The agent died or the session closed: what the lane holds besides pending requests fails with `err`. */
  onEnd?: (err: A4aaError) => void;
  /** How to start the agent in its JSON-RPC mode, for a handshake that never completes. */
  modeHint?: string;
}

/** The peer's lines ("in": read from the agent's stdout) as the recorder's tap takes them. */
function tapLines(tap: LineTap | undefined): ((dir: "in" | "out", line: string) => void) | undefined {
  return tap && ((dir, line) => tap(dir === "in" ? "stdout" : "stdin", line));
}

export class AgentProcess {
  private phaseNow: AgentPhase = "handshake";
  private readonly link: AgentLink;
  private fatalError: A4aaError | null = null;
  /** The first non-JSON stdout lines printed outside a turn. */
  private readonly noise: string[] = [];
  private noiseCount = 0;
  private handshakeTimer: NodeJS.Timeout | undefined;
  /** The handshake request awaiting its answer. */
  private awaiting: string | null = null;

  constructor(
    readonly ctx: LaneContext,
    readonly proc: PipeProcess,
    private readonly o: AgentProcessOptions,
  ) {
    this.link = new AgentLink({
      stdin: proc.stdin,
      stdout: proc.stdout,
      maxLineBytes: ctx.maxOutputBytes,
      gate: ctx.gate,
      requireVersion: o.requireVersion,
      writeVersion: o.writeVersion,
      onRequest: o.onRequest,
      onNotification: o.onNotification,
      onUnmatchedResponse: o.onUnmatchedResponse,
      parseCommon: o.parseCommon,
      onNoise: (line, reason) => this.onNoise(line, reason),
      onOverflow: (bytes) => this.die(errors.outputLimit(this.phase === "handshake" ? "initialize" : "prompt", ctx.maxOutputBytes), `a ${bytes}-byte line`),
      onEnd: () => whenStdoutEndsWithoutExit(proc, () => this.stdoutClosed()),
      onLine: tapLines(lineTap(proc)),
    });
    forwardStderr(proc, ctx.gate, o.inTurn, ctx.emit);
    void proc.exited.then(() => {
      if (this.phase === "closing") return;
      const err =
        this.phase === "handshake"
          ? exitedBeforeHandshake(ctx.spec, `${o.name} ${proc.exitSummary("before the handshake completed")}${this.noiseSection()}`)
          : errors.agentExited("prompt", `${o.name} ${proc.exitSummary()}`);
      this.die(err, "exited");
    });
    const ms = handshakeDeadlineMs(ctx);
    this.handshakeTimer = setTimeout(() => this.handshakeTimedOut(ms), ms);
  }

  get phase(): AgentPhase {
    return this.phaseNow;
  }

  /** Leaving "handshake" ends its deadline. */
  set phase(p: AgentPhase) {
    this.phaseNow = p;
    if (p !== "handshake") clearTimeout(this.handshakeTimer);
  }

  private handshakeTimedOut(ms: number): void {
    if (this.phaseNow !== "handshake" || this.fatalError) return;
    const err = handshakeTimeoutError({
      name: this.o.name,
      program: this.ctx.spec.command.program,
      ms,
      awaiting: this.awaiting,
      modeHint: this.o.modeHint ?? this.ctx.spec.lane,
      spec: this.ctx.spec,
      stopped: true,
      noise: this.noiseSection(),
      stderrTail: this.proc.stderrTail(),
    });
    this.die(err, `no handshake within ${ms} ms`);
  }

  /** A stdout line that is not JSON-RPC: a raw event during a turn, kept for the detail otherwise; logged. */
  private onNoise(line: string, reason: string): void {
    const { ctx, o } = this;
    const inTurn = this.phaseNow === "ready" && o.inTurn();
    if (inTurn) ctx.emit({ type: "raw", source: "stdout", payload: line });
    else if (this.noise.length < NOISE_KEPT) this.noise.push(line.length > NOISE_LINE_CHARS ? `${line.slice(0, NOISE_LINE_CHARS)}…` : line);
    const n = ++this.noiseCount;
    const text = `${o.name} printed a stdout line that is not JSON-RPC (${reason})${inTurn ? "; sent as a raw event" : ""}: ${line.slice(0, 200)}`;
    if (n <= NOISE_WARNED) ctx.logger.warn(text, ctx.sessionId);
    else ctx.logger.debug(text, ctx.sessionId);
    if (n === NOISE_WARNED) ctx.logger.warn(`${o.name} keeps printing non-JSON lines on stdout; further ones are logged at debug level`, ctx.sessionId);
  }

  /** The kept non-JSON stdout lines, for an error's detail ("" when there are none). */
  noiseSection(): string {
    if (!this.noise.length) return "";
    return `\nfirst stdout lines that are not JSON-RPC (${this.noise.length} of ${this.noiseCount}):\n${this.noise.map((l) => `  ${l}`).join("\n")}`;
  }

  /** Stdout ended but the process lives on (R-HOSTILE-5): it is of no use any more. */
  private stdoutClosed(): void {
    if (this.phase === "closing") return;
    const what = `${this.o.name} closed its stdout but kept running; it was stopped`;
    this.die(this.phase === "handshake" ? errors.spawnFailed(what) : errors.agentExited("prompt", what), "stdout closed");
  }

  /** Set once the agent died: every later call fails with it. */
  get fatal(): A4aaError | null {
    return this.fatalError;
  }

  /** False once the agent died or closing began (R-SUP-2). */
  get alive(): boolean {
    return this.fatalError === null && this.phase !== "closing";
  }

  /** The agent is gone or unusable: every pending call fails with `err`. */
  die(err: A4aaError, why: string): void {
    if (this.fatalError) return;
    this.fatalError = err;
    clearTimeout(this.handshakeTimer);
    this.ctx.logger.info(`${this.o.name} is unusable (${why}): ${err.message}`, this.ctx.sessionId);
    this.link.close(err);
    this.o.onEnd?.(err);
    if (this.proc.running) void this.proc.stop({ stdinGraceMs: 0 });
  }

  /**
   * A request to the agent. An error answer becomes `refused`'s error; a handshake request
   * abandoned because the session closed fails with session_closed (`o.session`: the
   * signal of that session, when it is not the process's own); `o.timeoutMs`: the peer's
   * deadline for the answer.
   */
  request<R>(method: string, params: unknown, stage: RequestStage, refused?: Refusal, o: AgentRequestOptions = {}): Promise<R> {
    if (this.fatalError) return Promise.reject(this.fatalError);
    // On a shared process a session's handshake requests end with that session, not the process.
    const signal = stage === "prompt" ? undefined : (o.session ?? this.ctx.signal);
    const handshake = this.phaseNow === "handshake";
    if (handshake) this.awaiting = method;
    const answered = this.link.request<R>(method, params, { signal, timeoutMs: o.timeoutMs, onTimeout: o.onTimeout, envelope: o.envelope });
    if (handshake) void answered.then(() => (this.awaiting = null), () => undefined);
    return answered.catch((e: unknown) => {
      if (signal?.aborted && !(e instanceof A4aaError) && !(e instanceof RpcResponseError)) {
        throw errors.sessionClosed("open", `the session was closed while ${this.o.name} was starting`);
      }
      throw refused ? fromPeerError(e, refused) : e;
    });
  }

  notify(method: string, params?: unknown): void {
    this.link.notify(method, params);
  }

  /**
   * Ends the process tree; `first` ends what the lane started besides it (it reports
   * whether that left nothing behind). Pending requests then fail with session_closed.
   */
  async close(first?: () => Promise<boolean>): Promise<{ clean: boolean; detail?: string }> {
    this.phase = "closing";
    const othersClean = first ? await first() : true;
    const r = await this.proc.stop();
    const closed = errors.sessionClosed("close", "the session was closed");
    this.link.close(closed);
    this.o.onEnd?.(closed);
    if (r.clean && othersClean) return { clean: true };
    const survivors = [...r.survivors, ...(othersClean ? [] : ["a terminal"])];
    return { clean: false, detail: `processes survived the stop ladder (${r.steps.join(" → ")}): ${survivors.join(", ")}` };
  }
}

export interface Handshaking {
  handshake(): Promise<void>;
  close(): Promise<unknown>;
}

/** Starts the agent on pipes and runs the lane's handshake; a failed handshake stops it all first. */
export async function openAgentProcess<T extends Handshaking>(ctx: LaneContext, make: (proc: PipeProcess) => T): Promise<T> {
  const { spec } = ctx;
  const proc = await startPipe({
    program: spec.command.program,
    args: spec.command.args,
    cwd: ctx.cwd,
    env: ctx.env,
    name: `${spec.id} (${spec.lane})`,
    wrapper: ctx.sandbox?.agent,
  });
  return handshaken(make(proc));
}

/** Runs the session's handshake; a failed one closes the session (and what it holds) before the error goes on. */
export async function handshaken<T extends Handshaking>(session: T): Promise<T> {
  try {
    await session.handshake();
    return session;
  } catch (e) {
    await session.close().catch(() => undefined);
    throw e;
  }
}
