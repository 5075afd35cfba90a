// The session registry: checks a session/open (cwd, environment boundary, selectors)
// before anything is spawned, creates the Session that runs it, and routes the session
// methods to it by id.
import { checkNotEmpty } from "../lanes/prompt-content.js";
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import path from "node:path";
import type { ParamsOf, ResultOf } from "../../generated/ts/methods.js";
import type { AgentSpec, EnvLiterals, PermissionPreset } from "../../generated/ts/types.js";
import { buildChildEnv, openSecrets } from "../env/policy.js";
import type { Recording } from "../journal/recorder.js";
import { secrets } from "../journal/redact.js";
import { A4aaError, errors } from "../errors.js";
import type { Logger } from "../log.js";
import { laneDriver } from "../lanes/registry.js";
import { checkMcpServers, mcpLiterals } from "../lanes/mcp-servers.js";
import type { AnyLaneDriver, ResolvedOptions } from "../lanes/lane.js";
import { SharedPool } from "../lanes/shared-pool.js";
import type { SessionService } from "./service.js";
import { AgentCatalog } from "../catalog/catalog.js";
import { specForOpen } from "../catalog/open.js";
import type { HostChannel } from "./host-channel.js";
import { Session, type SessionTimings } from "./session.js";
import { DEFAULTS, LIMITS } from "../../generated/ts/limits.js";

export const DEFAULT_MAX_OUTPUT_BYTES: number = DEFAULTS.AgentSpecCommon.maxOutputBytes;

export interface SessionManagerOptions {
  host: HostChannel;
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
  /** Where lane drivers come from (tests inject fakes). */
  drivers?: (lane: AgentSpec["lane"]) => Promise<AnyLaneDriver>;
}

export class SessionManager implements SessionService {
  private readonly sessions = new Map<string, Session>();
  private readonly timings: SessionTimings;
  private readonly idPrefix = randomUUID().slice(0, 8);
  private counter = 0;
  /** Shared agent processes (§13). */
  readonly pool: SharedPool;

  constructor(private readonly o: SessionManagerOptions) {
    this.timings = { cancelGraceMs: LIMITS.cancelGraceMs, ...o.timings };
    this.pool = new SharedPool(o.logger);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Whether this sidecar ever handed out `sessionId` (ids are `<prefix>-<n>`, n counting up). */
  private wasOpened(sessionId: string): boolean {
    const n = sessionId.startsWith(`${this.idPrefix}-`) ? Number(sessionId.slice(this.idPrefix.length + 1)) : NaN;
    return Number.isInteger(n) && n >= 1 && n <= this.counter;
  }

  private get(sessionId: string, stage: "prompt" | "cancel"): Session {
    const s = this.sessions.get(sessionId);
    if (!s || s.state === "opening") throw errors.unknownSession(sessionId, stage);
    return s;
  }

  /** The spec an open (or a prewarm) runs: its own, or a catalog agent's resolved. */
  private resolve(params: Parameters<typeof specForOpen>[0]): ReturnType<typeof specForOpen> {
    return specForOpen(params, () => (this.o.catalog ??= new AgentCatalog({ hostEnv: this.o.hostEnv })));
  }

  /** The agent's environment (§5); the redactor learns every literal first (R-REC-1). */
  private childEnv(spec: AgentSpec, params: Parameters<typeof openSecrets>[0]): Record<string, string> {
    const sessionEnv = params.env;
    secrets.add(openSecrets(params));
    const env = buildChildEnv({ policy: spec.command.env, sessionEnv, hostEnv: this.o.hostEnv, trustHostEnv: this.o.trustHostEnv });
    if (!env.ok) throw env.error;
    return env.env;
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

  async open(params: ParamsOf<"session/open">): Promise<ResultOf<"session/open">> {
    const { spec, shown } = this.resolve(params);
    const cwd = path.resolve(params.cwd ?? spec.command.cwd ?? process.cwd());
    let isDir = false;
    try {
      isDir = statSync(cwd).isDirectory();
    } catch {
      // reported below
    }
    if (!isDir) throw errors.invalidParams("open", `cwd ${JSON.stringify(cwd)} is not an existing directory`);

    // R-REC-1: the redactor learns every literal before anything about this open is logged.
    secrets.add(mcpLiterals(params.options?.mcpServers));
    const env = this.childEnv(spec, params);
    // R-MCP-2: the MCP servers' env by the same rules, before anything is spawned.
    checkMcpServers(params.options?.mcpServers);

    const driver = await (this.o.drivers ?? laneDriver)(spec.lane);
    const permission: PermissionPreset = params.options?.permission ?? driver.defaultPermission(spec);
    const options: ResolvedOptions = { ...params.options, permission };
    driver.precheck(spec, options, params.resume);
    if ((spec.lane === "acp" || spec.lane === "rpc") && spec.share && !driver.prewarm) {
      throw errors.unsupportedSelector("open", `share: the ${spec.lane} lane cannot share agent processes; open without share`);
    }

    const id = `${this.idPrefix}-${++this.counter}`;
    const transcript = this.o.recording?.open(id, spec, options);
    const session = new Session({
      id,
      host: this.o.host,
      logger: this.o.logger,
      timings: this.timings,
      permission,
      permissionTimeoutMs: this.o.permissionTimeoutMs,
      tap: transcript,
    });
    // Registered before the agent starts, so that events it sends during the handshake
    // are forwarded under this id before the open response.
    this.sessions.set(id, session);
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
      });
      return {
        sessionId: id,
        nativeSessionId: lane.nativeSessionId,
        capabilities: lane.capabilities,
        agentInfo: lane.agentInfo,
        sessionState: lane.sessionState,
        ...(lane.shared ? { shared: true } : {}),
        ...(shown ? { spec: shown } : {}),
      };
    } catch (e) {
      if (session.state === "opening" || session.state === "closed") {
        this.sessions.delete(id);
        this.o.recording?.close(id);
      }
      throw e;
    }
  }

  async prompt(params: ParamsOf<"session/prompt">): Promise<ResultOf<"session/prompt">> {
    checkNotEmpty(params);
    const s = this.get(params.sessionId, "prompt");
    const { sessionId: _id, ...request } = params;
    return s.prompt(request);
  }

  history(params: ParamsOf<"session/history">): ResultOf<"session/history"> {
    const s = this.sessions.get(params.sessionId);
    if (!s) throw errors.unknownSession(params.sessionId, "transport");
    return s.journal.history(params.afterSeq, params.limit);
  }

  async cancel(params: ParamsOf<"session/cancel">): Promise<ResultOf<"session/cancel">> {
    const s = this.get(params.sessionId, "cancel");
    await s.cancel();
    return {};
  }

  /** §13: shared processes for a spec, started and initialized before any session/open needs them. */
  async prewarm(params: ParamsOf<"agents/prewarm">): Promise<ResultOf<"agents/prewarm">> {
    const { spec } = this.resolve(params);
    if ((spec.lane !== "acp" && spec.lane !== "rpc") || !spec.share) {
      throw errors.invalidParams("open",
        `agents/prewarm: the spec of ${JSON.stringify(spec.id)} does not opt in to shared processes; add share: {} (an acp or rpc spec, or agent.share for a catalog agent)`,
      );
    }
    const env = this.childEnv(spec, params);
    const driver = await (this.o.drivers ?? laneDriver)(spec.lane);
    driver.precheck(spec, { permission: driver.defaultPermission(spec) }, undefined);
    if (!driver.prewarm) throw errors.unsupportedSelector("open", `share: the ${spec.lane} lane cannot share agent processes`);
    const r = await driver.prewarm(
      {
        spec,
        env,
        ...this.processSettings(spec),
        logger: this.o.logger,
        gate: this.o.host.gate,
        pool: this.pool,
      },
      params.count ?? 1,
    );
    this.o.logger.info(`prewarmed ${spec.lane} agent ${JSON.stringify(spec.id)}: ${r.started} started, ${r.processes} live`);
    return r;
  }

  async close(params: ParamsOf<"session/close">): Promise<ResultOf<"session/close">> {
    const s = this.sessions.get(params.sessionId);
    if (!s) {
      // Closing is idempotent (R-CLOSE-2): an id already closed, or never opened, answers zero counts.
      if (!this.wasOpened(params.sessionId)) {
        this.o.logger.info(`session/close ${JSON.stringify(params.sessionId)}: no session of that id was ever opened here (answered with zero counts); check the id the host sent`);
      }
      return { processes: { ended: 0, killed: 0 } };
    }
    const processes = await s.close();
    this.sessions.delete(s.id);
    this.o.recording?.close(s.id);
    return { processes };
  }

  async closeAll(): Promise<boolean> {
    const all = [...this.sessions.values()];
    const results = await Promise.allSettled(
      all.map(async (s) => {
        await s.close();
        this.sessions.delete(s.id);
        this.o.recording?.close(s.id);
      }),
    );
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
