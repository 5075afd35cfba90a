// The session registry: checks a session/open (cwd, environment boundary, selectors)
// before anything is spawned, creates the Session that runs it, and routes the session
// methods to it by id.
import { checkNotEmpty } from "../lanes/prompt-content.js";
import { randomUUID } from "node:crypto";
import type { ParamsOf, ResultOf } from "../../generated/ts/methods.js";
import type { AgentSpec } from "../../generated/ts/types.js";
import type { Recording } from "../journal/recorder.js";
import { A4aaError, errors } from "../errors.js";
import type { Logger } from "../log.js";
import type { AnyLaneDriver } from "../lanes/lane.js";
import { SharedPool } from "../lanes/shared-pool.js";
import type { SessionService } from "./service.js";
import { AgentCatalog } from "../catalog/catalog.js";
import { specForOpen } from "../catalog/open.js";
import type { HostChannel } from "./host-channel.js";
import { Session, type SessionTimings } from "./session.js";
import { DEFAULTS, LIMITS } from "../../generated/ts/limits.js";
import { FlowGate } from "../transport/ndjson-writer.js";
import { CountedAttachments, type Viewer } from "./attachments.js";
import { SessionViews, type SessionView } from "./views.js";
import { Facts } from "../telemetry/facts.js";
import type { SessionTracer } from "../telemetry/tracing.js";
import { enterCustody } from "../custody/open.js";
import { checkOpen, refuseWhenFull } from "./open-checks.js";
import { prewarmShared } from "./prewarm.js";
import { custodyEndpoint, custodyRefused, releaseCustody, stopCustody } from "../custody/endpoint.js";
import { enterSandbox, releaseSandbox, sandboxCapabilities } from "../sandbox/open.js";
import { sandboxSupport } from "../sandbox/support.js";
import type { Endpoint } from "../sandbox/relay.js";

export const DEFAULT_MAX_OUTPUT_BYTES: number = DEFAULTS.AgentSpecCommon.maxOutputBytes;

export interface SessionManagerOptions {
  /** A single host (tests, embedders): the caller of every method called without one. */
  host?: HostChannel;
  /** Closed while the host that must not be outrun (stdio) is not reading: agent readers pause on it. */
  gate?: FlowGate;
  /** R-REMOTE-3: a session no connection is attached to for this long is closed (default 300000). */
  detachTtlMs?: number;
  logger: Logger;
  version: string;
  /** The sidecar's own environment, the source of inherited names. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  trustHostEnv: boolean;
  permissionTimeoutMs?: number;
  /** `--handshake-timeout`: how long an agent of any lane has for its handshake (spec may override). */
  handshakeTimeoutMs?: number;
  timings?: Partial<SessionTimings>;
  /** The agents catalog that resolves `session/open {agent}` (default: the built-in one). */
  catalog?: AgentCatalog;
  /** `--record DIR`: every session gets a transcript. */
  recording?: Recording;
  /** R-REMOTE-9 `--max-sessions`: opens beyond it are refused `at_capacity`. */
  maxSessions?: number;
  /** R-REMOTE-8: the facts this layer reports into (sessions, turns, events, tokens, durations). */
  facts?: Facts;
  /** R-OTEL-1: spans of opens and turns (only when OTLP export is configured). */
  tracer?: SessionTracer;
  /** Where lane drivers come from (tests inject fakes). */
  drivers?: (lane: AgentSpec["lane"]) => Promise<AnyLaneDriver>;
  /**
   * R-SANDBOX-1 `--sandbox-model-endpoint`: the one loopback address a sandbox with network
   * "model" reaches when the session has no custody proxy.
   */
  sandboxModelEndpoint?: Endpoint;
}

export class SessionManager implements SessionService {
  private readonly sessions = new Map<string, Session>();
  private readonly timings: SessionTimings;
  private readonly idPrefix = randomUUID().slice(0, 8);
  private counter = 0;
  /** Shared agent processes (§13). */
  readonly pool: SharedPool;
  private readonly gate: FlowGate;
  /** Who owns each session and who views it (§15). */
  readonly views: SessionViews;
  private readonly defaultCaller: Viewer | undefined;
  readonly facts: Facts;
  /** R-CUSTODY-1: a session of this manager used the sidecar's custody proxy (stopped at closeAll). */
  private usedCustody = false;

  constructor(private readonly o: SessionManagerOptions) {
    this.facts = o.facts ?? new Facts();
    this.facts.maxSessions = o.maxSessions;
    this.facts.sources.sessionsByState = () => {
      const by: Record<string, number> = {};
      for (const s of this.sessions.values()) by[s.state] = (by[s.state] ?? 0) + 1;
      return by;
    };
    this.facts.sources.custodyRefused = custodyRefused;
    this.timings = { cancelGraceMs: LIMITS.cancelGraceMs, ...o.timings };
    this.pool = new SharedPool(o.logger);
    this.gate = o.gate ?? o.host?.gate ?? new FlowGate();
    this.views = new SessionViews({
      logger: o.logger,
      detachTtlMs: o.detachTtlMs,
      closeAbandoned: (id) => this.close({ sessionId: id }, undefined, true).then(() => undefined),
    });
    const h = o.host;
    this.defaultCaller = h && {
      tenant: "",
      name: "host",
      event: (sid, e, seq) => h.event(sid, e, seq),
      requestPermission: (r, signal) => h.requestPermission(r, signal),
      permissionSettled: () => undefined,
    };
  }

  private caller(c: Viewer | undefined): Viewer {
    const v = c ?? this.defaultCaller;
    if (!v) throw new Error("SessionManager: a method was called without a caller and there is no default host");
    return v;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Whether this sidecar ever handed out `sessionId` (ids are `<prefix>-<n>`, n counting up). */
  private wasOpened(sessionId: string): boolean {
    const n = sessionId.startsWith(`${this.idPrefix}-`) ? Number(sessionId.slice(this.idPrefix.length + 1)) : NaN;
    return Number.isInteger(n) && n >= 1 && n <= this.counter;
  }

  private get(sessionId: string, stage: "prompt" | "cancel", caller: Viewer | undefined): Session {
    const s = this.sessions.get(sessionId);
    if (!s || s.state === "opening" || !this.views.owns(sessionId, this.caller(caller))) throw errors.unknownSession(sessionId, stage);
    return s;
  }

  /** A session of the caller's tenant (R-REMOTE-3: any other id is unknown_session). */
  private mine(sessionId: string, caller: Viewer | undefined, stage: "transport" | "prompt" | "cancel"): { s: Session; view: SessionView } {
    const s = this.sessions.get(sessionId);
    const view = this.views.get(sessionId);
    if (!s || !view || view.tenant !== this.caller(caller).tenant) throw errors.unknownSession(sessionId, stage);
    return { s, view };
  }

  /** The spec an open (or a prewarm) runs: its own, or a catalog agent's resolved. */
  private resolve(params: Parameters<typeof specForOpen>[0]): ReturnType<typeof specForOpen> {
    return specForOpen(params, () => this.catalog());
  }

  private catalog(): AgentCatalog {
    return (this.o.catalog ??= new AgentCatalog({ hostEnv: this.o.hostEnv }));
  }

  /** A session is gone (closed, or its open failed): its views, transcript, custody token and sandbox go too. */
  private forget(id: string): void {
    this.sessions.delete(id);
    this.views.remove(id);
    this.o.recording?.close(id);
    releaseCustody(id);
    releaseSandbox(id);
  }

  /** What the agent process runs with besides its spec and env (part of a shared process's key). */
  private processSettings(spec: AgentSpec) {
    return {
      clientName: spec.clientName ?? "a4aa",
      clientVersion: this.o.version,
      maxOutputBytes: spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      handshakeTimeoutMs: this.o.handshakeTimeoutMs,
    };
  }

  /** R-REMOTE-9: from now on every open is refused `draining`; what runs goes on. */
  drain(): void {
    this.facts.draining = true;
  }

  async open(params: ParamsOf<"session/open">, caller?: Viewer): Promise<ResultOf<"session/open">> {
    const who = this.caller(caller);
    refuseWhenFull({ draining: this.facts.draining, held: this.sessions.size, max: this.o.maxSessions });
    const started = performance.now();
    // capabilities.sandbox: what this machine can give (probed once, meanwhile).
    const support = sandboxSupport();
    const { spec: resolved, shown, cwd, env, custody, sandbox: boxed, driver, permission, options } = await checkOpen(params, {
      hostEnv: this.o.hostEnv,
      trustHostEnv: this.o.trustHostEnv,
      catalog: () => this.catalog(),
      drivers: this.o.drivers,
      modelEndpoint: this.o.sandboxModelEndpoint,
    });

    const id = `${this.idPrefix}-${++this.counter}`;
    const custodied = custody && (await enterCustody(id, custody, { env, spec: resolved, logger: this.o.logger, agentTraffic: this.facts.custodyTraffic(resolved.id) }));
    this.usedCustody ||= !!custodied;
    const spec = custodied ? custodied.spec : resolved;
    // R-SANDBOX-1 network "model": the custody proxy when the session has one, else --sandbox-model-endpoint.
    const sandbox = boxed && (await enterSandbox(id, boxed, { cwd, env, modelEndpoint: custodied ? await custodyEndpoint() : this.o.sandboxModelEndpoint }));
    const transcript = this.o.recording?.open(id, spec, options);
    const host = new CountedAttachments(this.facts, { sessionId: id, gate: this.gate, onAttachedChange: (n) => this.views.attachedChanged(id, n) });
    const session = new Session({
      id,
      host,
      logger: this.o.logger,
      timings: this.timings,
      permission,
      permissionTimeoutMs: this.o.permissionTimeoutMs,
      tap: transcript,
      ...(params.options?.budget ? { budget: params.options.budget } : {}),
      ...(this.o.tracer ? { tracer: this.o.tracer } : {}),
      ...(custodied ? { custody: custodied.traffic } : {}),
    });
    const openSpan = this.o.tracer?.open({ sessionId: id, agent: spec.id, lane: spec.lane, program: spec.command.program });
    // Registered before the agent starts, so that events it sends during the handshake
    // are forwarded under this id before the open response.
    this.sessions.set(id, session);
    this.views.add({ id, tenant: who.tenant, agent: spec.id, cwd, session, attachments: host });
    host.attach(who);
    this.o.logger.info(`opening ${spec.lane} agent ${JSON.stringify(spec.id)} (${spec.command.program}) in ${cwd}`, id);
    try {
      const lane = await session.open(driver, {
        spec,
        cwd,
        env,
        options,
        resume: params.resume,
        ...this.processSettings(spec),
        pool: this.pool,
        ...(openSpan ? { traceStep: openSpan.step } : {}),
        ...(sandbox ? { sandbox } : {}),
      });
      this.facts.duration("open", (performance.now() - started) / 1000);
      openSpan?.end({ shared: lane.shared });
      return {
        sessionId: id,
        nativeSessionId: lane.nativeSessionId,
        capabilities: { ...lane.capabilities, sandbox: sandboxCapabilities(await support, boxed) },
        agentInfo: lane.agentInfo,
        sessionState: lane.sessionState,
        ...(lane.shared ? { shared: true } : {}),
        // Under custody the command line gained the entry's base URL arguments (no secret in them).
        ...(shown ? { spec: spec === resolved ? shown : { ...shown, command: { ...shown.command, args: spec.command.args } } } : {}),
      };
    } catch (e) {
      openSpan?.end({ error: e instanceof A4aaError ? e : undefined });
      if (session.state === "opening" || session.state === "closed") this.forget(id);
      throw e;
    }
  }

  async prompt(params: ParamsOf<"session/prompt">, caller?: Viewer): Promise<ResultOf<"session/prompt">> {
    checkNotEmpty(params);
    const s = this.get(params.sessionId, "prompt", caller);
    const { sessionId: _id, operationId: _op, ...request } = params;
    // A prompt refused before it starts (a turn runs, the agent is gone) is not a turn.
    if (s.state !== "idle") return s.prompt(request);
    const started = performance.now();
    this.facts.turnStarted();
    try {
      const outcome = await s.prompt(request);
      if (outcome.usage) this.facts.turnUsage(this.views.get(s.id)?.agent ?? "?", outcome.usage);
      return outcome;
    } finally {
      this.facts.turnEnded((performance.now() - started) / 1000);
    }
  }

  history(params: ParamsOf<"session/history">, caller?: Viewer): ResultOf<"session/history"> {
    const { s } = this.mine(params.sessionId, caller, "transport");
    return s.journal.history(params.afterSeq, params.limit);
  }

  /** R-REMOTE-4: see SessionViews.attach; `finish` runs right after the answer is written. */
  attach(params: ParamsOf<"session/attach">, caller?: Viewer): { result: ResultOf<"session/attach">; finish: () => void } {
    const { s, view } = this.mine(params.sessionId, caller, "transport");
    return this.views.attach(view, s.journal, this.caller(caller), params.afterSeq);
  }

  detach(params: ParamsOf<"session/detach">, caller?: Viewer): ResultOf<"session/detach"> {
    const { view } = this.mine(params.sessionId, caller, "transport");
    view.attachments.detach(this.caller(caller));
    return {};
  }

  list(caller?: Viewer): ResultOf<"sessions/list"> {
    return this.views.list(this.caller(caller).tenant);
  }

  /** A connection ended: it detaches from every session (R-REMOTE-3). */
  detachEverywhere(caller: Viewer): void {
    this.views.detachEverywhere(caller);
  }

  async cancel(params: ParamsOf<"session/cancel">, caller?: Viewer): Promise<ResultOf<"session/cancel">> {
    const s = this.get(params.sessionId, "cancel", caller);
    await s.cancel();
    return {};
  }

  /** §13: shared processes for a spec, started and initialized before any session/open needs them. */
  prewarm(params: ParamsOf<"agents/prewarm">): Promise<ResultOf<"agents/prewarm">> {
    const { spec } = this.resolve(params);
    return prewarmShared(spec, params, {
      env: this.o,
      drivers: this.o.drivers,
      settings: this.processSettings(spec),
      logger: this.o.logger,
      gate: this.gate,
      pool: this.pool,
    });
  }

  async close(params: ParamsOf<"session/close">, caller?: Viewer, abandoned = false): Promise<ResultOf<"session/close">> {
    const s = this.sessions.get(params.sessionId);
    if (!s || (!abandoned && !this.views.owns(params.sessionId, this.caller(caller)))) {
      // Closing is idempotent (R-CLOSE-2): an id already closed, or never opened, answers zero counts.
      if (!this.wasOpened(params.sessionId)) {
        this.o.logger.info(`session/close ${JSON.stringify(params.sessionId)}: no session of that id was ever opened here (answered with zero counts); check the id the host sent`);
      }
      return { processes: { ended: 0, killed: 0 } };
    }
    const processes = await s.close();
    this.forget(s.id);
    return { processes };
  }

  async closeAll(): Promise<boolean> {
    const all = [...this.sessions.values()];
    const results = await Promise.allSettled(
      all.map(async (s) => {
        await s.close();
        this.forget(s.id);
      }),
    );
    if (this.usedCustody) await stopCustody();
    let clean = await this.pool.closeAll().catch((e) => {
      this.o.logger.error(`stopping the shared agent processes failed: ${(e as Error).message}`);
      return false;
    });
    results.forEach((r, i) => {
      if (r.status === "rejected") {
        clean = false;
        this.o.logger.error(`closing failed: ${(r.reason as Error)?.message ?? r.reason}`, all[i].id);
      }
    });
    return clean;
  }
}
