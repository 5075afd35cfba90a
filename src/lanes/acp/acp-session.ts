// One ACP session, the sidecar its ACP client: the session's handshake (session/new |
// resume | load, selectors; the process's initialize is in initialize.ts), turns, cancel,
// the agent's requests (permissions, fs, terminals), and the end.
import { acpMcpTransports, checkMcpTransports, mcpCapabilities, mergeAcpMcpServers } from "../mcp-servers.js";
import type * as A from "../../../generated/acp/types.js";
import {
  validateNewSessionResponse,
  validatePromptResponse,
  validateRequestPermissionRequest,
  validateSessionNotification,
} from "../../../generated/acp/validators.js";
import type {
  AcpAgentSpec,
  AgentInfo,
  Capabilities,
  PermissionOptionKind,
  SessionState,
  TurnOutcome,
  Usage,
} from "../../../generated/ts/types.js";
import { A4aaError, RpcErrorCode, errors } from "../../errors.js";
import { RpcHandlerError } from "../../transport/json-rpc.js";
import { AgentProcess, openAgentProcess, type Refusal } from "../agent-process.js";
import { authFailure, looksLikeAuthFailure } from "../credential-hints.js";
import type { LaneContext, LanePermissionOption, LaneSession, TurnInput } from "../lane.js";
import { OwnChannel, type LaneChannel, type RoutedSession } from "../lane-channel.js";
import { ConfinedFs } from "./fs.js";
import { contentTexts, mapKind, mapMetaQuotaUsage, mapPromptUsage, mapStopReason, mapUpdate, type ToolCallMemory } from "./map-update.js";
import { isPlainTextChunk, parseTextChunkLine } from "./plain-chunk.js";
import { currentValue, markCurrent, offered, selectorCall, type SelectorKind } from "./selectors.js";
import { Terminals } from "./terminals.js";
import { ACP_MODE_HINT, acpInitialize, type AcpInit } from "./initialize.js";
import { acpPrompt } from "./prompt-blocks.js";

/** ACP's error code for "authentication required". */
const ACP_AUTH_REQUIRED = -32000;

const OPTION_KINDS: Record<string, PermissionOptionKind> = {
  allow_once: "allowOnce",
  allow_always: "allowAlways",
  reject_once: "rejectOnce",
  reject_always: "rejectAlways",
};

/** What one session hands the process it runs on: the agent's messages for it. */
export interface AcpHandlers extends RoutedSession {
  inTurn(): boolean;
}

export type AcpChannel = LaneChannel;

export class AcpLaneSession implements LaneSession {
  nativeSessionId: string | null = null;
  agentInfo: AgentInfo | null = null;
  sessionState: SessionState | null = null;
  capabilities!: Capabilities;

  private inTurn = false;
  /** The running turn has shown a tool call or asked for one (permission, fs, terminal). */
  private acted = false;
  private readonly agent: AcpChannel;
  private readonly toolCalls = new Map<string, ToolCallMemory>();
  private readonly state: SessionState = {};
  private readonly fs: ConfinedFs | null;
  private readonly terminals: Terminals | null;
  private lastCostUsd: number | undefined;

  /**
   * `channel` makes what the session speaks through (its own process, or its share of one);
   * `init` is the shared process's initialize answer (an own process is initialized here).
   */
  constructor(
    private readonly ctx: LaneContext<AcpAgentSpec>,
    channel: (h: AcpHandlers) => AcpChannel,
    private readonly init?: AcpInit,
    readonly shared = false,
  ) {
    const cc = ctx.spec.clientCapabilities;
    this.fs = cc?.fs?.readTextFile || cc?.fs?.writeTextFile ? new ConfinedFs(ctx.cwd) : null;
    this.terminals = cc?.terminal ? new Terminals(ctx.cwd, ctx.env, ctx.logger, ctx.sessionId, ctx.sandbox?.terminal) : null;
    this.agent = channel({
      onRequest: (method, params) => this.onAgentRequest(method, params),
      onNotification: (method, params) => this.onAgentNotification(method, params),
      inTurn: () => this.inTurn,
      // Nobody can release the terminals of a dead agent.
      onEnd: () => {
        if (this.terminals?.size) void this.terminals.killAll();
      },
    });
  }

  get alive(): boolean {
    return this.agent.alive;
  }

  private get fatal(): A4aaError | null {
    return this.agent.fatal;
  }

  async handshake(): Promise<void> {
    const { spec, cwd } = this.ctx;
    const init = this.init ?? (await acpInitialize(this.agent, this.ctx));
    this.agentInfo = init.agentInfo;
    const caps = init.caps;
    const canResume = !!caps.sessionCapabilities?.resume;
    const canLoad = caps.loadSession === true;

    // R-MCP-1: the option's servers in ACP form, within the agent's mcpCapabilities.
    const mcp = acpMcpTransports(caps);
    checkMcpTransports(this.ctx.options.mcpServers, mcp, "the agent (its initialize mcpCapabilities)");
    const sessionParams = { cwd, mcpServers: mergeAcpMcpServers(spec.mcpServers, this.ctx.options.mcpServers) };
    const refused: Refusal = (e) =>
      e.code === ACP_AUTH_REQUIRED || looksLikeAuthFailure(e.message)
        ? authFailure(spec, "initialize", e.message)
        : errors.initializeFailed("initialize", e.message);
    let answer: A.NewSessionResponse;
    if (this.ctx.resume) {
      if (!canResume && !canLoad) {
        throw errors.unsupportedSelector("open", "resume: the agent supports neither session/resume nor session/load");
      }
      const method = canResume ? "session/resume" : "session/load";
      this.agent.bind(this.ctx.resume, false);
      // session/load replays the history as updates before it answers; they are forwarded.
      answer = ((await this.agent.request(method, { ...sessionParams, sessionId: this.ctx.resume }, "initialize", refused)) ?? {}) as A.NewSessionResponse;
      this.nativeSessionId = this.ctx.resume;
    } else {
      answer = await this.agent.request<A.NewSessionResponse>("session/new", sessionParams, "initialize", refused);
      if (!validateNewSessionResponse(answer)) {
        throw errors.initializeFailed("initialize", `the agent's session/new answer is not ACP: ${JSON.stringify(validateNewSessionResponse.errors?.[0] ?? {})}`);
      }
      this.nativeSessionId = answer.sessionId;
      this.agent.bind(answer.sessionId);
    }
    const a = answer as { modes?: unknown; models?: unknown; configOptions?: unknown };
    if (a.modes && typeof a.modes === "object") this.state.modes = a.modes as SessionState["modes"];
    if (a.models && typeof a.models === "object") this.state.models = a.models as SessionState["models"];
    if (Array.isArray(a.configOptions)) this.state.configOptions = a.configOptions as SessionState["configOptions"];

    for (const kind of ["mode", "model", "effort"] as SelectorKind[]) {
      const value = this.ctx.options[kind];
      if (value !== undefined) await this.setSelector(kind, value, "open");
    }

    const promptCaps = caps.promptCapabilities as { image?: unknown; embeddedContext?: unknown } | undefined;
    this.capabilities = {
      lane: "acp",
      resume: canResume || canLoad,
      cancel: true,
      permissions: true,
      images: promptCaps?.image === true,
      // ACP: every agent takes text and resource links; images and embedded resources when offered.
      content: { image: promptCaps?.image === true, resource: promptCaps?.embeddedContext === true, resourceLink: true },
      mcp: mcpCapabilities(mcp),
      selectors: {
        model: offered(this.state, "model").length > 0,
        mode: offered(this.state, "mode").length > 0,
        effort: offered(this.state, "effort").length > 0,
        permission: true,
      },
    };
    const st: SessionState = {};
    if (this.state.modes) st.modes = this.state.modes;
    if (this.state.models) st.models = this.state.models;
    if (this.state.configOptions) st.configOptions = this.state.configOptions;
    this.sessionState = st;
    this.agent.ready();
  }

  private async setSelector(kind: SelectorKind, value: string, stage: "open" | "prompt"): Promise<void> {
    const call = selectorCall(this.state, this.nativeSessionId!, kind, value);
    if (typeof call === "string") throw errors.unsupportedSelector(stage, call);
    if (!call) return;
    const r =
      (await this.agent.request<{ configOptions?: unknown } | null>(call.method, call.params, stage === "open" ? "initialize" : "prompt", (e) =>
        errors.unsupportedSelector(stage, `the agent refused ${kind} ${JSON.stringify(value)}: ${e.message}`),
      )) ?? {};
    markCurrent(this.state, kind, value);
    if (Array.isArray(r.configOptions)) this.state.configOptions = r.configOptions as SessionState["configOptions"];
  }

  checkTurn(input: TurnInput): void {
    for (const kind of ["model", "effort"] as const) {
      const v = input[kind];
      if (v === undefined) continue;
      const call = selectorCall(this.state, this.nativeSessionId!, kind, v);
      if (typeof call === "string") throw errors.unsupportedSelector("prompt", call);
    }
  }

  async prompt(input: TurnInput): Promise<TurnOutcome> {
    if (this.fatal) throw this.fatal;
    this.inTurn = true;
    this.acted = false;
    const costAtStart = this.lastCostUsd;
    const restore: [SelectorKind, string][] = [];
    try {
      for (const kind of ["model", "effort"] as const) {
        const v = input[kind];
        if (v === undefined) continue;
        const prev = currentValue(this.state, kind);
        await this.setSelector(kind, v, "prompt");
        if (prev !== undefined && prev !== v) restore.push([kind, prev]);
      }
      const res = await this.agent.request<A.PromptResponse>(
        "session/prompt",
        {
          sessionId: this.nativeSessionId,
          prompt: acpPrompt(input.blocks),
          // R-OTEL-2: the turn's trace context in ACP's extension slot.
          ...(input.traceparent ? { _meta: { traceparent: input.traceparent, ...(input.tracestate ? { tracestate: input.tracestate } : {}) } } : {}),
        },
        "prompt",
        (e) => {
          // e.message already names the method ("session/prompt: … (code)").
          const message = `${e.message}${e.data !== undefined ? ` ${JSON.stringify(e.data)}` : ""}`;
          // An auth failure before any tool event: the agent provably did nothing.
          if (looksLikeAuthFailure(message) || (e.code === ACP_AUTH_REQUIRED && /auth/i.test(e.message))) return authFailure(this.ctx.spec, "prompt", message, this.acted);
          return errors.agentFailed("prompt", message);
        },
      );
      // Lenient on purpose: a stop reason newer than our schema is still an answer.
      if (!res || typeof res !== "object" || typeof (res as { stopReason?: unknown }).stopReason !== "string") {
        throw errors.agentProtocol("prompt", `the agent's session/prompt answer is not ACP: ${JSON.stringify(res)?.slice(0, 500)}`);
      }
      if (!validatePromptResponse(res)) {
        this.ctx.logger.debug(`session/prompt answer deviates from the ACP schema: ${JSON.stringify(validatePromptResponse.errors?.[0])}`, this.ctx.sessionId);
      }
      let stopReason = mapStopReason(res.stopReason);
      if (!stopReason) {
        this.ctx.logger.warn(`unknown ACP stop reason ${JSON.stringify(res.stopReason)}; reported as endTurn`, this.ctx.sessionId);
        stopReason = "endTurn";
      }
      const outcome: TurnOutcome = { stopReason };
      let usage: Usage | undefined = mapPromptUsage((res as { usage?: unknown }).usage) ?? mapMetaQuotaUsage(res._meta);
      if (this.lastCostUsd !== undefined && this.lastCostUsd !== costAtStart) {
        usage = { ...usage, costUsd: Math.max(0, this.lastCostUsd - (costAtStart ?? 0)) };
      }
      if (usage) outcome.usage = usage;
      return outcome;
    } finally {
      this.inTurn = false;
      this.agent.noteDescendants();
      for (const [kind, prev] of restore) {
        if (this.fatal) break;
        await this.setSelector(kind, prev, "prompt").catch((e) =>
          this.ctx.logger.warn(`could not restore ${kind} ${prev} after the turn: ${(e as Error).message}`, this.ctx.sessionId),
        );
      }
    }
  }

  async cancel(): Promise<void> {
    if (this.fatal || !this.nativeSessionId) return;
    this.agent.notify("session/cancel", { sessionId: this.nativeSessionId });
    if (this.terminals && this.terminals.size) {
      const clean = await this.terminals.killAll();
      if (!clean) this.ctx.logger.warn("a terminal's process tree survived its kill", this.ctx.sessionId);
    }
  }

  close(): Promise<{ clean: boolean; detail?: string }> {
    const terminals = this.terminals;
    return this.agent.close(terminals ? () => terminals.killAll() : undefined);
  }

  private onAgentNotification(method: string, params: unknown): void {
    if (method === "session/update") {
      // An update the schema does not know (newer ACP, or a deviation) is passed on as raw.
      // The common case, a plain text chunk, is recognised without the schema validator.
      if (!isPlainTextChunk(params) && !validateSessionNotification(params)) {
        this.ctx.emit({ type: "raw", source: "acp", payload: params ?? null });
        return;
      }
      const ev = mapUpdate(params, this.toolCalls);
      if (ev.type === "toolCall" || ev.type === "toolCallUpdate") this.acted = true;
      if (ev.type === "usage" && ev.costUsd !== undefined) this.lastCostUsd = ev.costUsd;
      this.ctx.emit(ev);
      return;
    }
    this.ctx.emit({ type: "raw", source: "acp", payload: { method, params: params ?? null } });
  }

  private async onAgentRequest(method: string, params: unknown): Promise<unknown> {
    this.acted = true;
    switch (method) {
      case "session/request_permission":
        return this.onPermission(params);
      case "fs/read_text_file":
        if (!this.fs) break;
        return this.fs.read(params as { path: unknown });
      case "fs/write_text_file":
        if (!this.fs) break;
        return this.fs.write(params as { path: unknown; content: unknown });
      case "terminal/create":
        if (!this.terminals) break;
        if (!params || typeof (params as { command?: unknown }).command !== "string") throw new RpcHandlerError(RpcErrorCode.InvalidParams, "command must be a string");
        return this.terminals.create(params as Parameters<Terminals["create"]>[0]);
      case "terminal/output":
        if (!this.terminals) break;
        return this.terminals.output(params as { terminalId: string });
      case "terminal/wait_for_exit":
        if (!this.terminals) break;
        return this.terminals.waitForExit(params as { terminalId: string });
      case "terminal/kill":
        if (!this.terminals) break;
        return this.terminals.kill(params as { terminalId: string });
      case "terminal/release":
        if (!this.terminals) break;
        return this.terminals.release(params as { terminalId: string });
    }
    this.ctx.emit({ type: "raw", source: "acp", payload: { method, params: params ?? null } });
    throw new RpcHandlerError(RpcErrorCode.MethodNotFound, `Method not found: the client does not offer ${method}`);
  }

  private async onPermission(params: unknown): Promise<A.RequestPermissionResponse> {
    if (!validateRequestPermissionRequest(params)) {
      throw new RpcHandlerError(RpcErrorCode.InvalidParams, `invalid session/request_permission params: ${JSON.stringify(validateRequestPermissionRequest.errors?.[0] ?? {})}`);
    }
    const tc = params.toolCall;
    const mem = this.toolCalls.get(tc.toolCallId);
    const options: LanePermissionOption[] = [];
    for (const o of params.options) {
      const kind = OPTION_KINDS[o.kind as string];
      if (kind) options.push({ optionId: o.optionId, name: o.name, kind });
      else this.ctx.logger.warn(`permission option ${o.optionId} has unknown kind ${JSON.stringify(o.kind)}; not offered`, this.ctx.sessionId);
    }
    const decision = await this.ctx.askPermission({
      toolCallId: tc.toolCallId,
      title: typeof tc.title === "string" ? tc.title : (mem?.title ?? tc.toolCallId),
      kind: tc.kind ? mapKind(tc.kind) : (mem?.kind ?? "other"),
      contentTexts: contentTexts(tc.content) ?? [],
      options,
      raw: params,
    });
    return decision.outcome === "selected"
      ? { outcome: { outcome: "selected", optionId: decision.optionId } }
      : { outcome: { outcome: "cancelled" } };
  }
}

export function openAcpSession(ctx: LaneContext<AcpAgentSpec>): Promise<AcpLaneSession> {
  return openAgentProcess(ctx, (proc) =>
    new AcpLaneSession(ctx, (h) => new OwnChannel(new AgentProcess(ctx, proc, { name: "the agent", modeHint: ACP_MODE_HINT, requireVersion: false, writeVersion: true, parseCommon: parseTextChunkLine, ...h }))),
  );
}
