// One agent process that speaks JSON-RPC on its stdio, as the acp and rpc lanes drive it:
// started on pipes, its link, its death (exit, an oversized line), requests that fail
// with the session's own errors, and its stop. A lane session composes one and adds its
// protocol; if the lane's handshake fails, everything started is stopped before the error
// goes up.
import { A4aaError, errors } from "../errors.js";
import { startPipe, type PipeProcess } from "../supervise/spawn.js";
import { AgentLink, type AgentLinkOptions } from "../transport/agent-link.js";
import { RpcResponseError } from "../transport/json-rpc.js";
import type { LaneContext } from "./lane.js";

export type AgentPhase = "handshake" | "ready" | "closing";

/** The stage a request is made in: the handshake's requests are abandoned when the session closes. */
export type RequestStage = "initialize" | "prompt";

/** What the agent's error answer to a request means to the host. */
export type Refusal = (e: RpcResponseError) => A4aaError;

/** The one place a peer's error answer becomes an A4aaError; anything else passes unchanged. */
export function fromPeerError(e: unknown, refused: Refusal): unknown {
  return e instanceof RpcResponseError ? refused(e) : e;
}

export interface AgentProcessOptions
  extends Pick<AgentLinkOptions, "onRequest" | "onNotification" | "requireVersion" | "writeVersion" | "onUnmatchedResponse"> {
  /** How logs and errors name the agent ("the agent", "codex app-server"). */
  name: string;
  /** Whether a turn is running: the agent's stderr lines are streamed only then. */
  inTurn: () => boolean;
  /** The agent died or the session closed: what the lane holds besides pending requests fails with `err`. */
  onEnd?: (err: A4aaError) => void;
}

export class AgentProcess {
  phase: AgentPhase = "handshake";
  private readonly link: AgentLink;
  private fatalError: A4aaError | null = null;

  constructor(
    private readonly ctx: LaneContext,
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
      onNoise: (line, reason) => {
        ctx.logger.debug(`a stdout line of ${o.name} ignored (${reason}): ${line.slice(0, 200)}`, ctx.sessionId);
        ctx.emit({ type: "raw", source: "stdout", payload: line });
      },
      onOverflow: (bytes) => this.die(errors.outputLimit(this.phase === "handshake" ? "initialize" : "prompt", ctx.maxOutputBytes), `a ${bytes}-byte line`),
    });
    proc.onStderrLine((line) => {
      if (o.inTurn()) ctx.emit({ type: "stderr", text: line });
    });
    void proc.exited.then(() => {
      if (this.phase === "closing") return;
      const err =
        this.phase === "handshake"
          ? errors.spawnFailed(`${o.name} ${proc.exitSummary("before the handshake completed")}`)
          : errors.agentExited("prompt", `${o.name} ${proc.exitSummary()}`);
      this.die(err, "exited");
    });
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
    this.ctx.logger.info(`${this.o.name} is unusable (${why}): ${err.message}`, this.ctx.sessionId);
    this.link.close(err);
    this.o.onEnd?.(err);
    if (this.proc.running) void this.proc.stop({ stdinGraceMs: 0 });
  }

  /**
   * A request to the agent. An error answer becomes `refused`'s error; a handshake request
   * abandoned because the session closed fails with session_closed.
   */
  request<R>(method: string, params: unknown, stage: RequestStage, refused?: Refusal): Promise<R> {
    if (this.fatalError) return Promise.reject(this.fatalError);
    const signal = stage === "prompt" ? undefined : this.ctx.signal;
    return this.link.request<R>(method, params, { signal }).catch((e: unknown) => {
      if (signal?.aborted && !(e instanceof A4aaError) && !(e instanceof RpcResponseError)) {
        throw new A4aaError("session_closed", "open", `the session was closed while ${this.o.name} was starting`);
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
    const closed = new A4aaError("session_closed", "close", "the session was closed");
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
  });
  const session = make(proc);
  try {
    await session.handshake();
    return session;
  } catch (e) {
    await session.close().catch(() => undefined);
    throw e;
  }
}
