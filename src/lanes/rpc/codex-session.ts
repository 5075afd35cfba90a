// One Codex thread driven as the app-server's client: the thread's handshake (thread/start |
// thread/resume; the process's initialize is in initialize.ts), turns (turn/start …
// turn/completed), interrupts (including the one that races ahead of the turn), approvals,
// and the end.
// Over 350 lines: one class whose turn, item and approval handling share the thread's state.
import { codexMcpConfig, mcpCapabilities, type McpTransports } from "../mcp-servers.js";
import type * as C from "../../../generated/codex/types.js";
import type { AgentEvent, Capabilities, Effort, RpcAgentSpec, TurnOutcome } from "../../../generated/ts/types.js";
import { A4aaError, RpcErrorCode, errors } from "../../errors.js";
import { waitAtMost } from "../../supervise/deadline.js";
import { RpcHandlerError, RpcResponseError, type RequestContext } from "../../transport/json-rpc.js";
import { AgentProcess, openAgentProcess, type Refusal } from "../agent-process.js";
import { authFailure, looksLikeAuthFailure } from "../credential-hints.js";
import type { LaneContext, LaneSession, TurnInput } from "../lane.js";
import { OwnChannel, type LaneChannel, type RoutedSession } from "../lane-channel.js";
import { COMMAND_APPROVAL, FILE_CHANGE_APPROVAL, approvalResponse, commandApproval, fileChangeApproval, type ApprovalAsk } from "./approvals.js";
import { TurnUsage, isToolItem, planOf, rateLimitsOf, statusOf, toolCallOf, toolCallUpdateOf, type ToolItemMemory } from "./map-notification.js";
import { codexPolicy } from "./presets.js";
import { ActiveTurn } from "./active-turn.js";
import { CODEX_MODE_HINT, CODEX_NAME, codexInitialize } from "./initialize.js";
import { codexInput } from "./turn-input.js";

/** How long `cancel()` waits for the id of a turn Codex has not acknowledged yet. */
const CANCEL_ID_WAIT_MS = 2000;

/** Codex takes stdio and streamable-HTTP MCP servers; it has no SSE transport. */
export const CODEX_MCP: McpTransports = { stdio: true, http: true, sse: false };

export class CodexLaneSession implements LaneSession {
  nativeSessionId: string | null = null;
  readonly agentInfo = null;
  readonly sessionState = null;
  readonly capabilities: Capabilities = {
    lane: "rpc",
    resume: true,
    cancel: true,
    permissions: true,
    images: true,
    // Images as data-URL image items; embedded files and links as text items (content-text.ts).
    content: { image: true, resource: true, resourceLink: true },
    mcp: mcpCapabilities(CODEX_MCP),
    selectors: { model: true, mode: false, effort: true, permission: true },
  };

  private readonly agent: LaneChannel;
  private threadId: string | null = null;
  private turn: ActiveTurn | null = null;
  /** turn/completed that arrived before the turn/start answer named its turn. */
  private readonly earlyCompletions = new Map<string, C.Turn>();
  private readonly toolItems = new Map<string, ToolItemMemory>();
  /** Items whose text arrived as deltas (their item/completed repeats it). */
  private readonly streamed = new Set<string>();
  private readonly usage = new TurnUsage();
  /** Approval requests being decided, by request id: aborted when Codex resolves one itself. */
  private readonly approvals = new Map<string, AbortController>();
  // Codex keeps a turn's model and effort for later turns: the lane tracks what is in force.
  private baseModel: string | null = null;
  private baseEffort: string | null = null;
  private activeModel: string | null = null;
  private activeEffort: string | null = null;
  private warnedEffort = false;
  /** The running turn has shown a tool item or asked for an approval. */
  private acted = false;

  /**
   * `channel` makes what the session speaks through: its own process (initialized here), or
   * its thread's share of a shared one (`shared`: initialized when it started).
   */
  constructor(
    private readonly ctx: LaneContext<RpcAgentSpec>,
    channel: (h: CodexHandlers) => LaneChannel,
    readonly shared = false,
  ) {
    this.agent = channel({
      onRequest: (method, params, rctx) => this.onAgentRequest(method, params, rctx),
      onNotification: (method, params) => this.onNotification(method, params),
      inTurn: () => this.turn !== null,
      onEnd: (err) => this.turn?.fail(err),
    });
  }

  get alive(): boolean {
    return this.agent.alive;
  }

  private get fatal(): A4aaError | null {
    return this.agent.fatal;
  }

  async handshake(): Promise<void> {
    const { ctx } = this;
    if (!this.shared) await codexInitialize(this.agent, ctx);

    const { approvalPolicy, sandbox } = codexPolicy(ctx.spec, ctx.options.permission);
    const mcp = ctx.options.mcpServers?.length ? { config: codexMcpConfig(ctx.options.mcpServers) } : {};
    const common = { cwd: ctx.cwd, approvalPolicy, sandbox, ...(ctx.options.model ? { model: ctx.options.model } : {}), ...mcp };
    const what = ctx.resume ? `thread/resume ${ctx.resume}` : "thread/start";
    const refused: Refusal = (e) =>
      /auth|login|unauthori[sz]ed/i.test(e.message) || looksLikeAuthFailure(e.message)
        ? authFailure(ctx.spec, "initialize", `${what}: ${e.message}`)
        : errors.initializeFailed("initialize", `${what}: ${e.message}`);
    if (ctx.resume) this.agent.bind(ctx.resume, false);
    const answer: C.ThreadStartResponse | C.ThreadResumeResponse = ctx.resume
      ? await this.agent.request<C.ThreadResumeResponse>(
          "thread/resume",
          // The history is not replayed: Codex deprecates hydrating it on resume.
          { threadId: ctx.resume, ...common, excludeTurns: true } as C.ThreadResumeParams,
          "initialize",
          refused,
        )
      : await this.agent.request<C.ThreadStartResponse>("thread/start", common as C.ThreadStartParams, "initialize", refused);
    const thread = (answer as { thread?: { id?: unknown } })?.thread;
    if (!thread || typeof thread.id !== "string") {
      throw errors.initializeFailed("initialize", `codex answered thread/${ctx.resume ? "resume" : "start"} without a thread id: ${JSON.stringify(answer)?.slice(0, 500)}`);
    }
    this.threadId = thread.id;
    this.nativeSessionId = thread.id;
    this.agent.bind(thread.id);
    this.activeModel = typeof answer.model === "string" ? answer.model : null;
    this.activeEffort = typeof answer.reasoningEffort === "string" ? answer.reasoningEffort : null;
    this.baseModel = ctx.options.model ?? this.activeModel;
    this.baseEffort = ctx.options.effort ?? this.activeEffort;
    this.agent.ready();
  }

  checkTurn(): void {
    // Model and effort are free-form for Codex: it judges them when the turn runs.
  }

  /** The selectors turn/start must carry so that this turn runs with `input`'s choice. */
  private selectorParams(input: TurnInput): { model?: string; effort?: string } {
    const out: { model?: string; effort?: string } = {};
    const model = input.model ?? this.baseModel;
    if (model && model !== this.activeModel) out.model = model;
    const effort: Effort | string | null = input.effort ?? this.baseEffort;
    if (effort && effort !== this.activeEffort) out.effort = effort;
    else if (!effort && this.activeEffort && !this.warnedEffort) {
      // Codex has no "back to the default" for a turn's effort: it stays until changed.
      this.warnedEffort = true;
      this.ctx.logger.warn(`codex keeps effort ${this.activeEffort} from an earlier turn (the session set no effort to return to)`, this.ctx.sessionId);
    }
    return out;
  }

  async prompt(input: TurnInput): Promise<TurnOutcome> {
    if (this.fatal) throw this.fatal;
    // A turn the session layer already settled (cancelled, grace elapsed) is let go.
    this.turn?.fail(new Error("superseded by a new turn"));
    const turn = new ActiveTurn();
    this.turn = turn;
    this.acted = false;
    this.usage.startTurn();
    try {
      const selectors = this.selectorParams(input);
      const params = {
        threadId: this.threadId!,
        input: codexInput(input),
        ...selectors,
      } as C.TurnStartParams;
      // codex app-server reads a W3C context from the request's `trace` member (beside params)
      // and continues that trace in its own telemetry (R-OTEL-2).
      const trace = input.traceparent ? { trace: { traceparent: input.traceparent, ...(input.tracestate ? { tracestate: input.tracestate } : {}) } } : undefined;
      const started = await this.agent.request<C.TurnStartResponse>(
        "turn/start",
        params,
        "prompt",
        (e) => errors.agentFailed("prompt", `turn/start: ${e.message}`, false),
        trace,
      );
      if (selectors.model) this.activeModel = selectors.model;
      if (selectors.effort) this.activeEffort = selectors.effort;
      const id = started?.turn?.id;
      if (typeof id !== "string") throw errors.agentProtocol("prompt", `codex answered turn/start without a turn id: ${JSON.stringify(started)?.slice(0, 500)}`);
      turn.setId(id);
      const early = this.earlyCompletions.get(id);
      this.earlyCompletions.clear();
      if (early) turn.finish(early);
      else if (turn.cancelRequested) this.interrupt(turn);
      return this.outcome(await turn.done);
    } finally {
      turn.fail(new Error("the turn ended"));
      if (this.turn === turn) this.turn = null;
    }
  }

  private outcome(t: C.Turn): TurnOutcome {
    const usage = this.usage.current;
    switch (t.status) {
      case "completed":
        return usage ? { stopReason: "endTurn", usage } : { stopReason: "endTurn" };
      case "interrupted":
        return usage ? { stopReason: "cancelled", usage } : { stopReason: "cancelled" };
      case "failed": {
        const e = t.error;
        const detail = [e?.message ?? "the turn failed", e?.additionalDetails].filter(Boolean).join(": ");
        // An auth failure before any tool item: Codex provably did nothing.
        if (looksLikeAuthFailure(`${detail} ${JSON.stringify(e?.codexErrorInfo ?? "")}`)) throw authFailure(this.ctx.spec, "prompt", detail, this.acted);
        throw errors.agentFailed("prompt", detail);
      }
      default:
        this.ctx.logger.warn(`codex completed turn ${t.id} with status ${JSON.stringify(t.status)}; reported as endTurn`, this.ctx.sessionId);
        return { stopReason: "endTurn" };
    }
  }

  async cancel(): Promise<void> {
    const turn = this.turn;
    if (!turn || turn.finished || this.fatal) return;
    turn.cancelRequested = true;
    if (turn.id === null) {
      // turn/start has not been answered: the interrupt goes out as soon as it is (prompt()).
      await waitAtMost(turn.idKnown, CANCEL_ID_WAIT_MS);
      return;
    }
    this.interrupt(turn);
  }

  /**
   * Sends turn/interrupt (once, plus one retry). Codex refuses an interrupt for a turn it
   * has not started yet; then it is sent again on turn/started.
   */
  private interrupt(turn: ActiveTurn): void {
    if (turn.finished || turn.interrupts > 0 || this.fatal || turn.id === null) return;
    this.sendInterrupt(turn);
  }

  private sendInterrupt(turn: ActiveTurn): void {
    turn.interrupts++;
    this.agent.request("turn/interrupt", { threadId: this.threadId!, turnId: turn.id! } satisfies C.TurnInterruptParams, "prompt").catch((e: unknown) => {
      if (turn.finished || this.fatal) return;
      if (e instanceof RpcResponseError && turn.interrupts < 2) {
        if (turn.started) this.sendInterrupt(turn);
        else turn.retryOnStart = true;
        this.ctx.logger.debug(`turn/interrupt refused (${e.message}); sending it again once the turn has started`, this.ctx.sessionId);
        return;
      }
      this.ctx.logger.warn(`turn/interrupt failed: ${(e as Error)?.message ?? e}`, this.ctx.sessionId);
    });
  }

  close(): Promise<{ clean: boolean; detail?: string }> {
    return this.agent.close();
  }

  private raw(method: string, params: unknown): void {
    this.ctx.emit({ type: "raw", source: "rpc", payload: { method, params: (params ?? null) as never } });
  }

  private onNotification(method: string, params: unknown): void {
    const p = (params ?? {}) as Record<string, unknown>;
    // Sub-agents run their own threads: their traffic is passed on, never mixed into ours.
    if (typeof p.threadId === "string" && this.threadId && p.threadId !== this.threadId) return this.raw(method, params);
    const emit = (e: AgentEvent) => this.ctx.emit(e);
    switch (method) {
      case "item/agentMessage/delta":
        this.streamed.add(String(p.itemId));
        return emit({ type: "messageChunk", text: String(p.delta ?? "") });
      case "item/reasoning/summaryTextDelta":
      case "item/reasoning/textDelta":
        this.streamed.add(String(p.itemId));
        return emit({ type: "thoughtChunk", text: String(p.delta ?? "") });
      case "item/reasoning/summaryPartAdded":
        // A new paragraph of the reasoning summary.
        if (typeof p.summaryIndex === "number" && p.summaryIndex > 0) emit({ type: "thoughtChunk", text: "\n\n" });
        return;
      case "item/started":
      case "item/completed":
        return this.onItem(method, p as unknown as C.ItemStartedNotification);
      case "turn/plan/updated":
        return emit(planOf(p as unknown as C.TurnPlanUpdatedNotification));
      case "thread/tokenUsage/updated": {
        const u = (p as unknown as C.ThreadTokenUsageUpdatedNotification).tokenUsage;
        if (u?.total && u.last) return emit(this.usage.update(u));
        break;
      }
      case "turn/started":
        return this.onTurnStarted((p as unknown as C.TurnStartedNotification).turn);
      case "turn/completed":
        if (this.onTurnCompleted((p as unknown as C.TurnCompletedNotification).turn)) return;
        break;
      case "serverRequest/resolved":
        // Codex settled a request itself (an interrupt, another client): withdraw it from the host.
        this.approvals.get(JSON.stringify(p.requestId))?.abort(new Error("codex resolved the request itself"));
        return;
      case "thread/status/changed":
        if (p.status && typeof p.status === "object") return emit(statusOf(p as unknown as C.ThreadStatusChangedNotification));
        break;
      case "account/rateLimits/updated":
        if (p.rateLimits && typeof p.rateLimits === "object") return emit(rateLimitsOf(p as unknown as C.AccountRateLimitsUpdatedNotification));
        break;
      case "error":
        // willRetry: codex retries a failing or unreachable API and the turn goes on (a person sees it).
        if (p.willRetry === true) return emit({ type: "notice", text: String((p.error as { message?: unknown } | undefined)?.message ?? "retrying"), retrying: true });
        break;
      case "thread/name/updated":
        if (typeof p.threadName === "string") return emit({ type: "sessionInfo", nativeSessionId: this.threadId!, title: p.threadName });
        break;
    }
    this.raw(method, params);
  }

  private onItem(method: "item/started" | "item/completed", n: C.ItemStartedNotification): void {
    const item = n?.item as (C.ThreadItem & { type: string; id: string }) | undefined;
    if (!item || typeof item.type !== "string" || typeof item.id !== "string") return this.raw(method, n);
    if (isToolItem(item)) {
      this.acted = true;
      return this.ctx.emit(method === "item/started" ? toolCallOf(item, this.toolItems) : toolCallUpdateOf(item, this.toolItems));
    }
    switch (item.type) {
      case "userMessage":
        // The prompt the host just sent.
        return;
      case "agentMessage":
      case "reasoning":
        if (method === "item/started") return item.type === "agentMessage" ? this.ctx.newMessage?.() : undefined;
        if (!this.streamed.delete(item.id)) this.unstreamed(item);
        return;
    }
    this.raw(method, n);
  }

  /** A message or reasoning item that came whole, without deltas. */
  private unstreamed(item: C.ThreadItem & { type: string }): void {
    if (item.type === "agentMessage") {
      this.ctx.newMessage?.();
      const text = (item as C.AgentMessageThreadItem).text;
      if (text) this.ctx.emit({ type: "messageChunk", text });
    } else {
      const r = item as C.ReasoningThreadItem;
      const text = (r.summary?.length ? r.summary : (r.content ?? [])).join("\n\n");
      if (text) this.ctx.emit({ type: "thoughtChunk", text });
    }
  }

  private onTurnStarted(t: C.Turn | undefined): void {
    const turn = this.turn;
    if (!turn || !t || (turn.id !== null && turn.id !== t.id)) return;
    turn.started = true;
    if (turn.retryOnStart && turn.id !== null) {
      turn.retryOnStart = false;
      this.sendInterrupt(turn);
    }
  }

  /** True when the completion was the current turn's. */
  private onTurnCompleted(t: C.Turn | undefined): boolean {
    const turn = this.turn;
    if (!turn || !t || typeof t.id !== "string") return false;
    if (turn.id === t.id) {
      turn.finish(t);
      return true;
    }
    if (turn.id === null) {
      this.earlyCompletions.set(t.id, t);
      return true;
    }
    return false;
  }

  private async onAgentRequest(method: string, params: unknown, rctx: RequestContext): Promise<unknown> {
    if (method === COMMAND_APPROVAL || method === FILE_CHANGE_APPROVAL) {
      this.acted = true;
      const p = params as { itemId?: unknown } | undefined;
      if (!p || typeof p.itemId !== "string") throw new RpcHandlerError(RpcErrorCode.InvalidParams, `${method}: itemId must be a string`);
      const onUnknown = (d: unknown) =>
        this.ctx.logger.warn(`${method}: decision ${JSON.stringify(d)} is unknown to a4aa; not offered`, this.ctx.sessionId);
      const mem = this.toolItems.get(p.itemId);
      const a: ApprovalAsk =
        method === COMMAND_APPROVAL
          ? commandApproval(params as C.CommandExecutionRequestApprovalParams, mem, onUnknown)
          : fileChangeApproval(params as C.FileChangeRequestApprovalParams, mem, onUnknown);
      const key = JSON.stringify(rctx.id);
      const withdrawn = new AbortController();
      // Asked for no running turn (it completed, perhaps in the same read as this request and
      // before its turn/start answer was taken in, or it names another turn): cancelled
      // whatever the preset, as outside a turn (R-PERM-1).
      const turn = this.turn;
      const turnId = (params as { turnId?: unknown }).turnId;
      const named = typeof turnId === "string" ? turnId : null;
      if (!turn || turn.finished || (named !== null && (turn.id !== null ? named !== turn.id : this.earlyCompletions.has(named)))) {
        withdrawn.abort(new Error(`${method} came outside a running turn`));
      }
      this.approvals.set(key, withdrawn);
      try {
        return approvalResponse(a, await this.ctx.askPermission(a.ask, withdrawn.signal));
      } finally {
        this.approvals.delete(key);
      }
    }
    // Never leave a request of Codex hanging: what a4aa cannot handle is refused.
    this.raw(method, params);
    throw new RpcHandlerError(RpcErrorCode.MethodNotFound, `a4aa does not handle ${method}`);
  }
}

/** What one session hands the process its thread runs on. */
export interface CodexHandlers extends RoutedSession {
  inTurn(): boolean;
}

export function openCodexSession(ctx: LaneContext<RpcAgentSpec>): Promise<CodexLaneSession> {
  return openAgentProcess(ctx, (proc) =>
    new CodexLaneSession(ctx, (h) =>
      new OwnChannel(
        new AgentProcess(ctx, proc, {
          name: CODEX_NAME,
          modeHint: CODEX_MODE_HINT,
          // Codex omits "jsonrpc" and numbers its own requests from 0.
          requireVersion: false,
          writeVersion: false,
          onUnmatchedResponse: (m) => ctx.logger.debug(`codex answered an unknown request id ${JSON.stringify(m.id)}`, ctx.sessionId),
          ...h,
        }),
      ),
    ),
  );
}
