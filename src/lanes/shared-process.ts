// The shared agent process (§13): one process, one link, many agent-side sessions (ACP
// sessions, Codex threads), and each session's share of it (SharedChannel, a LaneChannel). The agent's notifications and requests go to the session
// whose agent-side id they name (R-SHARE-1). A message naming an id not bound yet (the
// agent may speak of a session before the answer that names it has been read) waits
// briefly for the bind.
import path from "node:path";
import type { AgentSpec } from "../../generated/ts/types.js";
import { A4aaError, RpcErrorCode, errors } from "../errors.js";
import { startPipe, type PipeProcess } from "../supervise/spawn.js";
import { withoutProcessTap } from "../supervise/taps.js";
import { RpcHandlerError, type RequestContext } from "../transport/json-rpc.js";
import { AgentProcess, type AgentProcessOptions, type RequestStage, type Refusal } from "./agent-process.js";
import { traced, type LaneChannel, type RoutedSession } from "./lane-channel.js";
import { handshakeDeadlineMs, handshakeTimeoutError } from "./handshake-deadline.js";
import type { LaneContext, ShareSetup } from "./lane.js";
import { shareKey, type Lease, type PooledProcess } from "./shared-pool.js";

/** Messages for an agent-side id not bound yet: at most this many, this long. */
const UNBOUND_KEPT = 1024;
const UNBOUND_WAIT_MS = 10_000;
/** How long the agent has to answer a session's goodbye (session/close, thread/unsubscribe). */
const GOODBYE_MS = 5_000;

interface Unbound {
  id: string;
  deliver(h: RoutedSession): void;
  timer: NodeJS.Timeout;
}

export interface SharedProcessOptions extends Pick<AgentProcessOptions, "name" | "modeHint" | "requireVersion" | "writeVersion" | "onUnmatchedResponse" | "parseCommon"> {
  /** The agent-side session a message is about (ACP sessionId, Codex threadId), or null. */
  sessionOf(method: string, params: unknown): string | null;
  /** Notifications naming no session that are the whole process's (Codex's account rate limits): every session gets them. Others are dropped. */
  broadcast(method: string): boolean;
  /** What the lane calls a session in messages ("session", "thread"). */
  idName: string;
}

/** The shared process's own cwd: the spec's `command.cwd`, else the sidecar's (each session's cwd goes in its session/new or thread/start). */
export function processCwd(spec: AgentSpec): string {
  return path.resolve(spec.command.cwd ?? process.cwd());
}

/** The sharing key: what the process runs with, not what its sessions ask for. */
export function laneShareKey(s: ShareSetup, lane: Record<string, unknown>): string {
  const spec = s.spec as AgentSpec & { share?: unknown; handshakeTimeoutMs?: number };
  return shareKey({
    lane: spec.lane,
    program: spec.command.program,
    args: spec.command.args ?? [],
    cwd: processCwd(spec),
    env: s.env,
    clientName: s.clientName,
    maxOutputBytes: s.maxOutputBytes,
    handshakeTimeoutMs: spec.handshakeTimeoutMs ?? s.handshakeTimeoutMs ?? null,
    share: spec.share ?? null,
    ...lane,
  });
}

export class SharedProcess implements PooledProcess {
  readonly agent: AgentProcess;
  readonly name: string;
  private readonly routes = new Map<string, RoutedSession>();
  private readonly unbound: Unbound[] = [];
  private readonly deaths: (() => void)[] = [];

  constructor(
    protected readonly ctx: LaneContext,
    proc: PipeProcess,
    readonly o: SharedProcessOptions,
  ) {
    this.name = ctx.sessionId;
    this.agent = new AgentProcess(ctx, proc, {
      name: o.name,
      modeHint: o.modeHint,
      requireVersion: o.requireVersion,
      writeVersion: o.writeVersion,
      onUnmatchedResponse: o.onUnmatchedResponse,
      parseCommon: o.parseCommon,
      onRequest: (method, params, rctx) => this.route(method, params, rctx) as Promise<unknown>,
      onNotification: (method, params) => void this.route(method, params, null),
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

  onDeath(cb: () => void): void {
    this.deaths.push(cb);
  }

  close(): Promise<{ clean: boolean; detail?: string }> {
    return this.agent.close();
  }

  /**
   * Routes `id` to `h`. An id another session holds is refused (issue 30 N5): given by the
   * agent, the process is no longer trusted and is stopped (its sessions end with
   * agent_protocol_error, the next open starts a fresh one); asked for by the host (resume),
   * only that open fails.
   */
  attach(id: string, h: RoutedSession, fromAgent = true): void {
    const holder = this.routes.get(id);
    if (holder && holder !== h) {
      const { idName } = this.o;
      if (!fromAgent) throw errors.invalidParams("open", `${idName} ${id} is already open in another session on this shared agent process`);
      this.agent.die(
        errors.agentProtocol("prompt", `the shared agent gave ${idName} ${id} to two sessions; the process is no longer trusted and was stopped`),
        `it answered a new ${idName} with the id ${id}, already in use`,
      );
      throw errors.agentProtocol("open", `the shared agent answered with ${idName} ${id}, which another session already holds; the process was stopped (open again for a fresh one)`);
    }
    this.routes.set(id, h);
    for (let i = 0; i < this.unbound.length; ) {
      const u = this.unbound[i];
      if (u.id !== id) {
        i++;
        continue;
      }
      this.unbound.splice(i, 1);
      clearTimeout(u.timer);
      u.deliver(h);
    }
  }

  /** Forgets `id`'s route, when it is `h`'s. */
  detach(id: string, h: RoutedSession): void {
    if (this.routes.get(id) === h) this.routes.delete(id);
  }

  /** Hands a message of the agent to the session it names (`rctx`: it is a request). */
  private route(method: string, params: unknown, rctx: RequestContext | null): Promise<unknown> | void {
    const { o } = this;
    const named = o.sessionOf(method, params);
    const h = named === null ? undefined : this.routes.get(named);
    if (h) return rctx ? h.onRequest(method, params, rctx) : h.onNotification(method, params);
    if (named === null && !rctx && o.broadcast(method)) {
      for (const each of this.routes.values()) each.onNotification(method, params);
      return;
    }
    const refusal = () =>
      new RpcHandlerError(
        RpcErrorCode.InvalidParams,
        named === null ? `${method} names no ${o.idName}; on a shared process every request must name its ${o.idName}` : `no ${o.idName} ${JSON.stringify(named)} on this client`,
      );
    if (named === null || this.unbound.length >= UNBOUND_KEPT) {
      this.ctx.logger.debug(`shared agent: ${method} ${named === null ? `naming no ${o.idName}` : `for unknown ${o.idName} ${named}`} was dropped`, this.name);
      if (rctx) return Promise.reject(refusal());
      return;
    }
    return new Promise<unknown>((resolve, reject) => {
      const u: Unbound = {
        id: named,
        deliver: (to) => {
          if (!rctx) return void to.onNotification(method, params);
          to.onRequest(method, params, rctx).then(resolve, reject);
        },
        timer: setTimeout(() => {
          const i = this.unbound.indexOf(u);
          if (i >= 0) this.unbound.splice(i, 1);
          this.ctx.logger.debug(`shared agent: ${method} for ${o.idName} ${named}, which no session here holds, was dropped`, this.name);
          if (rctx) reject(refusal());
          else resolve(undefined);
        }, UNBOUND_WAIT_MS),
      };
      this.unbound.push(u);
    });
  }
}

/** One session's share of a SharedProcess. */
export class SharedChannel implements LaneChannel {
  private nativeId: string | null = null;
  private closed: A4aaError | null = null;
  private readonly pending = new Set<(e: A4aaError) => void>();

  /** `goodbye`: the request that tells the agent the session ended (none: it is just forgotten). */
  constructor(
    private readonly shared: SharedProcess,
    private readonly lease: Lease<SharedProcess>,
    private readonly h: RoutedSession,
    private readonly ctx: LaneContext,
    private readonly goodbye?: (nativeId: string) => { method: string; params: unknown } | null,
  ) {}

  get fatal(): A4aaError | null {
    return this.shared.agent.fatal ?? this.closed;
  }

  get alive(): boolean {
    return this.shared.alive && !this.closed;
  }

  request<R>(method: string, params: unknown, stage: RequestStage, refused?: Refusal, envelope?: Record<string, unknown>): Promise<R> {
    return traced(this.ctx, method, stage, this.send<R>(method, params, stage, refused, envelope));
  }

  private send<R>(method: string, params: unknown, stage: RequestStage, refused?: Refusal, envelope?: Record<string, unknown>): Promise<R> {
    if (this.closed) return Promise.reject(this.closed);
    const agent = this.shared.agent;
    // The session's handshake (session/new, thread/start) has the deadline an own process's has.
    const timeoutMs = stage === "initialize" ? handshakeDeadlineMs(this.ctx) : undefined;
    const onTimeout = () =>
      handshakeTimeoutError({
        name: this.shared.o.name,
        program: this.ctx.spec.command.program,
        ms: timeoutMs!,
        awaiting: method,
        modeHint: this.shared.o.modeHint ?? this.ctx.spec.lane,
        stopped: false,
        noise: agent.noiseSection(),
        stderrTail: agent.proc.stderrTail(),
      });
    return new Promise<R>((resolve, reject) => {
      // Closing the session fails what it still waits for, as closing its own process would.
      this.pending.add(reject);
      agent.request<R>(method, params, stage, refused, { session: this.ctx.signal, timeoutMs, onTimeout, envelope }).then(
        (v) => {
          this.pending.delete(reject);
          resolve(v);
        },
        (e) => {
          this.pending.delete(reject);
          // The process died under this session's handshake: an open failure, and the next
          // open starts a fresh process (R-SHARE-2), so it is worth retrying.
          if (stage === "initialize" && e instanceof A4aaError && e.code === "agent_exited" && e.stage !== "initialize") {
            reject(errors.agentExited("initialize", `the shared agent process ended during ${method}: ${e.detail ?? e.message}`, { retryable: true, uncertainEffect: false }));
          } else reject(e);
        },
      );
    });
  }

  notify(method: string, params?: unknown): void {
    if (!this.closed) this.shared.agent.notify(method, params);
  }

  bind(nativeSessionId: string, fromAgent = true): void {
    this.shared.attach(nativeSessionId, this.h, fromAgent);
    this.nativeId = nativeSessionId;
  }

  ready(): void {}

  noteDescendants(): void {
    this.shared.agent.proc.noteDescendants();
  }

  async close(first?: () => Promise<boolean>): Promise<{ clean: boolean; detail?: string }> {
    if (this.closed) return { clean: true };
    this.closed = errors.sessionClosed("close", "the session was closed");
    const othersClean = first ? await first() : true;
    const id = this.nativeId;
    const bye = id !== null && this.shared.alive ? this.goodbye?.(id) : null;
    if (bye) {
      await this.shared.agent
        .request(bye.method, bye.params, "prompt", undefined, { timeoutMs: GOODBYE_MS })
        .catch((e) => this.ctx.logger.debug(`the shared agent's ${bye.method} of ${id} failed: ${(e as Error).message}`, this.ctx.sessionId));
    }
    if (id !== null) this.shared.detach(id, this.h);
    this.h.onEnd(this.closed);
    for (const reject of this.pending) reject(this.closed);
    this.pending.clear();
    this.lease.release();
    return othersClean ? { clean: true } : { clean: false, detail: "processes survived the stop ladder: a terminal" };
  }
}

let counter = 0;

/**
 * Starts a shared process for `s` and runs `handshake` on it (a failed start stops it all
 * first). `make` builds the lane's SharedProcess on the started process.
 */
export async function startSharedProcess<T extends SharedProcess>(
  s: ShareSetup,
  make: (ctx: LaneContext, proc: PipeProcess) => T,
  handshake: (shared: T) => Promise<void>,
): Promise<T> {
  const spec = s.spec;
  const cwd = processCwd(spec);
  // Started outside the opening session's tap: a recording holds no other session's traffic.
  const proc = await withoutProcessTap(() =>
    startPipe({ program: spec.command.program, args: spec.command.args, cwd, env: s.env, name: `${spec.id} (${spec.lane}, shared)` }),
  );
  const ctx: LaneContext = {
    sessionId: `shared-${spec.lane}-${++counter}`,
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
  const shared = make(ctx, proc);
  try {
    await handshake(shared);
    shared.agent.phase = "ready";
    s.logger.info(`shared agent process ${ctx.sessionId} (pid ${proc.pid}) is ready`, ctx.sessionId);
    return shared;
  } catch (e) {
    await shared.close().catch(() => undefined);
    throw e;
  }
}

/** The setup of a shared process, from a session's context. */
export function shareSetupOf(ctx: LaneContext): ShareSetup {
  const { spec, env, clientName, clientVersion, maxOutputBytes, handshakeTimeoutMs, logger, gate } = ctx;
  return { spec, env, clientName, clientVersion, maxOutputBytes, handshakeTimeoutMs, logger, gate, pool: ctx.pool! };
}
