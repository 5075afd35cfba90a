// A shared ACP agent process (§13): one process, one link, one `initialize`, many agent
// sessions. The agent's notifications and requests go to the session whose agent-side id
// they name (R-SHARE-1): each session's events, permissions, fs confinement and terminals
// stay its own. A message naming an id not bound yet (the agent may speak of a session
// before its session/new answer has been read) waits briefly for the bind.
import path from "node:path";
import type { AcpAgentSpec } from "../../../generated/ts/types.js";
import { A4aaError, RpcErrorCode } from "../../errors.js";
import { startPipe, type PipeProcess } from "../../supervise/spawn.js";
import { RpcHandlerError } from "../../transport/json-rpc.js";
import { AgentProcess, type RequestStage, type Refusal } from "../agent-process.js";
import type { LaneContext, ShareSetup } from "../lane.js";
import { shareKey, type Lease, type PooledProcess } from "../shared-pool.js";
import { ACP_MODE_HINT, AcpLaneSession, acpInitialize, type AcpChannel, type AcpHandlers, type AcpInit } from "./acp-session.js";

/** Messages for a session id not bound yet, kept at most this many and this long. */
const UNBOUND_KEPT = 1024;
const UNBOUND_WAIT_MS = 10_000;
/** How long the agent has to answer `session/close`. */
const SESSION_CLOSE_MS = 5_000;

interface Unbound {
  sessionId: string;
  deliver(h: AcpHandlers): void;
  timer: NodeJS.Timeout;
}

let counter = 0;

/** The shared process's own cwd: the spec's `command.cwd`, else the sidecar's (each session's cwd goes in session/new). */
export function processCwd(spec: AcpAgentSpec | { command: { cwd?: string } }): string {
  return path.resolve(spec.command.cwd ?? process.cwd());
}

/** The sharing key of an ACP spec: what the process runs with, not what its sessions ask for. */
export function acpShareKey(s: ShareSetup): string {
  const spec = s.spec as AcpAgentSpec;
  return shareKey({
    lane: "acp",
    program: spec.command.program,
    args: spec.command.args ?? [],
    cwd: processCwd(spec),
    env: s.env,
    clientCapabilities: spec.clientCapabilities ?? null,
    authMethodId: spec.authMethodId ?? null,
    clientName: s.clientName,
    maxOutputBytes: s.maxOutputBytes,
    handshakeTimeoutMs: spec.handshakeTimeoutMs ?? s.handshakeTimeoutMs ?? null,
    share: spec.share ?? null,
  });
}

export class AcpConnection implements PooledProcess {
  readonly agent: AgentProcess;
  init!: AcpInit;
  readonly name: string;
  private readonly routes = new Map<string, AcpHandlers>();
  private readonly unbound: Unbound[] = [];
  private readonly deaths: (() => void)[] = [];

  constructor(
    private readonly ctx: LaneContext<AcpAgentSpec>,
    proc: PipeProcess,
  ) {
    this.name = ctx.sessionId;
    this.agent = new AgentProcess(ctx, proc, {
      name: "the shared agent",
      modeHint: ACP_MODE_HINT,
      requireVersion: false,
      writeVersion: true,
      onRequest: (method, params) => this.route(method, params, true) as Promise<unknown>,
      onNotification: (method, params) => void this.route(method, params, false),
      // Its stderr belongs to no one session: it is kept for error details, never streamed.
      inTurn: () => false,
      onEnd: (err) => {
        for (const u of this.unbound.splice(0)) clearTimeout(u.timer);
        for (const h of this.routes.values()) h.onEnd(err);
        if (err.code !== "session_closed") for (const cb of this.deaths.splice(0)) cb();
      },
    });
  }

  get alive(): boolean {
    return this.agent.alive;
  }

  get sessions(): number {
    return this.routes.size;
  }

  /** The agent offers `session/close` (ACP sessionCapabilities.close). */
  get canCloseSessions(): boolean {
    return !!(this.init.caps.sessionCapabilities as { close?: unknown } | undefined)?.close;
  }

  onDeath(cb: () => void): void {
    this.deaths.push(cb);
  }

  async handshake(): Promise<void> {
    this.init = await acpInitialize(this.agent, this.ctx);
    this.agent.phase = "ready";
  }

  close(): Promise<{ clean: boolean; detail?: string }> {
    return this.agent.close();
  }

  attach(sessionId: string, h: AcpHandlers): void {
    this.routes.set(sessionId, h);
    for (let i = 0; i < this.unbound.length; ) {
      const u = this.unbound[i];
      if (u.sessionId !== sessionId) {
        i++;
        continue;
      }
      this.unbound.splice(i, 1);
      clearTimeout(u.timer);
      u.deliver(h);
    }
  }

  detach(sessionId: string): void {
    this.routes.delete(sessionId);
  }

  /** Hands a message of the agent to the session it names. */
  private route(method: string, params: unknown, isRequest: boolean): Promise<unknown> | void {
    const sid = (params as { sessionId?: unknown } | null)?.sessionId;
    const named = typeof sid === "string" ? sid : null;
    const h = named === null ? undefined : this.routes.get(named);
    if (h) return isRequest ? h.onRequest(method, params) : h.onNotification(method, params);
    const refusal = () =>
      new RpcHandlerError(
        RpcErrorCode.InvalidParams,
        named === null ? `${method} names no sessionId; on a shared process every request must name its session` : `no session ${JSON.stringify(named)} on this client`,
      );
    if (named === null || this.unbound.length >= UNBOUND_KEPT) {
      this.ctx.logger.debug(`shared agent: ${method} ${named === null ? "without a sessionId" : `for unknown session ${named}`} was dropped`, this.name);
      if (isRequest) return Promise.reject(refusal());
      return;
    }
    return new Promise<unknown>((resolve, reject) => {
      const u: Unbound = {
        sessionId: named,
        deliver: (to) => {
          if (!isRequest) return void to.onNotification(method, params);
          to.onRequest(method, params).then(resolve, reject);
        },
        timer: setTimeout(() => {
          const i = this.unbound.indexOf(u);
          if (i >= 0) this.unbound.splice(i, 1);
          this.ctx.logger.debug(`shared agent: ${method} for session ${named}, which no session here holds, was dropped`, this.name);
          if (isRequest) reject(refusal());
          else resolve(undefined);
        }, UNBOUND_WAIT_MS),
      };
      this.unbound.push(u);
    });
  }
}

/** One session's share of an AcpConnection. */
class SharedSession implements AcpChannel {
  private nativeId: string | null = null;
  private closed: A4aaError | null = null;
  private readonly pending = new Set<(e: A4aaError) => void>();

  constructor(
    private readonly conn: AcpConnection,
    private readonly lease: Lease<AcpConnection>,
    private readonly h: AcpHandlers,
    private readonly ctx: LaneContext<AcpAgentSpec>,
  ) {}

  get fatal(): A4aaError | null {
    return this.conn.agent.fatal ?? this.closed;
  }

  get alive(): boolean {
    return this.conn.alive && !this.closed;
  }

  request<R>(method: string, params: unknown, stage: RequestStage, refused?: Refusal): Promise<R> {
    if (this.closed) return Promise.reject(this.closed);
    return new Promise<R>((resolve, reject) => {
      this.pending.add(reject);
      this.conn.agent.request<R>(method, params, stage, refused, this.ctx.signal).then(
        (v) => {
          this.pending.delete(reject);
          resolve(v);
        },
        (e) => {
          this.pending.delete(reject);
          reject(e);
        },
      );
    });
  }

  notify(method: string, params?: unknown): void {
    if (!this.closed) this.conn.agent.notify(method, params);
  }

  bind(nativeSessionId: string): void {
    this.nativeId = nativeSessionId;
    this.conn.attach(nativeSessionId, this.h);
  }

  ready(): void {}

  noteDescendants(): void {
    this.conn.agent.proc.noteDescendants();
  }

  /** The session's terminals end, the agent forgets the session (session/close if offered), its room is free. */
  async close(first?: () => Promise<boolean>): Promise<{ clean: boolean; detail?: string }> {
    if (this.closed) return { clean: true };
    this.closed = new A4aaError("session_closed", "close", "the session was closed");
    const othersClean = first ? await first() : true;
    const id = this.nativeId;
    if (id !== null && this.conn.alive && this.conn.canCloseSessions) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.conn.agent.request("session/close", { sessionId: id }, "prompt"),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${SESSION_CLOSE_MS} ms`)), SESSION_CLOSE_MS))),
      ])
        .catch((e) => this.ctx.logger.warn(`the shared agent's session/close of ${id} failed: ${(e as Error).message}`, this.ctx.sessionId))
        .finally(() => clearTimeout(timer));
    }
    if (id !== null) this.conn.detach(id);
    for (const reject of this.pending) reject(this.closed);
    this.pending.clear();
    this.lease.release();
    return othersClean ? { clean: true } : { clean: false, detail: "processes survived the stop ladder: a terminal" };
  }
}

/** Starts and initializes a shared process for `s` (a failed start stops it all first). */
export async function startAcpConnection(s: ShareSetup): Promise<AcpConnection> {
  const spec = s.spec as AcpAgentSpec;
  const cwd = processCwd(spec);
  const proc = await startPipe({ program: spec.command.program, args: spec.command.args, cwd, env: s.env, name: `${spec.id} (acp, shared)` });
  const ctx: LaneContext<AcpAgentSpec> = {
    sessionId: `shared-acp-${++counter}`,
    spec,
    cwd,
    env: s.env,
    options: { permission: "ask" },
    clientName: s.clientName,
    clientVersion: s.clientVersion,
    maxOutputBytes: s.maxOutputBytes,
    handshakeTimeoutMs: s.handshakeTimeoutMs,
    logger: s.logger,
    gate: s.gate,
    // Nothing of the process itself is any session's event.
    emit: () => undefined,
    askPermission: async () => ({ outcome: "cancelled" }),
    signal: new AbortController().signal,
  };
  const conn = new AcpConnection(ctx, proc);
  try {
    await conn.handshake();
    s.logger.info(`shared agent process ${ctx.sessionId} (pid ${proc.pid}) is ready`, ctx.sessionId);
    return conn;
  } catch (e) {
    await conn.close().catch(() => undefined);
    throw e;
  }
}

/** A session on a shared process: a live one with room, else a fresh one (§13). */
export async function openSharedAcpSession(ctx: LaneContext<AcpAgentSpec>, s: ShareSetup): Promise<AcpLaneSession> {
  const lease = await s.pool.acquire(acpShareKey(s), ctx.spec.share ?? {}, () => startAcpConnection(s));
  const session = new AcpLaneSession(ctx, (h) => new SharedSession(lease.proc, lease, h, ctx), lease.proc.init, true);
  try {
    await session.handshake();
    return session;
  } catch (e) {
    await session.close().catch(() => undefined);
    throw e;
  }
}
