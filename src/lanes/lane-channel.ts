// What a lane session speaks through (LaneChannel): its own agent process (OwnChannel, here)
// or its share of a shared one (SharedChannel, shared-process.ts); and what the channel
// hands the session back (RoutedSession).
import type { A4aaError } from "../errors.js";
import type { RequestContext } from "../transport/json-rpc.js";
import type { AgentProcess, RequestStage, Refusal } from "./agent-process.js";
import type { LaneContext } from "./lane.js";

/** One session's side of the agent's messages. */
export interface RoutedSession {
  onRequest(method: string, params: unknown, rctx: RequestContext): Promise<unknown>;
  onNotification(method: string, params: unknown): void;
  /** The process died or the session's part of it ended: fail what waits besides requests. */
  onEnd(err: A4aaError): void;
}

/** What a lane session speaks through. */
export interface LaneChannel {
  readonly fatal: A4aaError | null;
  readonly alive: boolean;
  /** `envelope`: members beside `params` in the request (codex app-server's `trace`). */
  request<R>(method: string, params: unknown, stage: RequestStage, refused?: Refusal, envelope?: Record<string, unknown>): Promise<R>;
  notify(method: string, params?: unknown): void;
  /**
   * The agent's id of this session is known: its messages are routed here from now on.
   * `fromAgent` false: the host chose it (resume) rather than the agent (session/new).
   */
  bind(nativeSessionId: string, fromAgent?: boolean): void;
  /** The session's handshake is over. */
  ready(): void;
  noteDescendants(): void;
  /** Ends the session's part (`first`: what it started, e.g. terminals), and the process when it is its own. */
  close(first?: () => Promise<boolean>): Promise<{ clean: boolean; detail?: string }>;
}

/** A session's own agent process (no `share`). */
export class OwnChannel implements LaneChannel {
  constructor(readonly agent: AgentProcess) {}
  get fatal(): A4aaError | null {
    return this.agent.fatal;
  }
  get alive(): boolean {
    return this.agent.alive;
  }
  request<R>(method: string, params: unknown, stage: RequestStage, refused?: Refusal, envelope?: Record<string, unknown>): Promise<R> {
    return traced(this.agent.ctx, method, stage, this.agent.request<R>(method, params, stage, refused, { envelope }));
  }
  notify(method: string, params?: unknown): void {
    this.agent.notify(method, params);
  }
  bind(): void {}
  ready(): void {
    this.agent.phase = "ready";
  }
  noteDescendants(): void {
    this.agent.proc.noteDescendants();
  }
  close(first?: () => Promise<boolean>): Promise<{ clean: boolean; detail?: string }> {
    return this.agent.close(first);
  }
}

/** A handshake request as a step of the traced open (R-OTEL-1); a turn's requests are not. */
export function traced<R>(ctx: Pick<LaneContext, "traceStep">, method: string, stage: RequestStage, answered: Promise<R>): Promise<R> {
  if (stage !== "initialize" || !ctx.traceStep) return answered;
  const done = ctx.traceStep(method);
  answered.then(() => done(false), () => done(true));
  return answered;
}
