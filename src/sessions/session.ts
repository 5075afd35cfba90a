// One session's lifecycle: opening → idle ⇄ turn → closing → closed (or dead after the
// agent crashed: good only for close). The rules every lane shares live here: one turn
// at a time, cancel settles as `cancelled` whatever the agent answers, close waits for
// the opening and ends the turn, then the process tree, before it answers.
// Over 350 lines: one class; its states, turn, cancel and close share the lifecycle they guard.
import type { AgentEvent, AgentSpec, Budget, PermissionPreset, ProcessCounts, TurnOutcome } from "../../generated/ts/types.js";
import { A4aaError, errors } from "../errors.js";
import { Journal } from "../journal/journal.js";
import { waitAtMost } from "../supervise/deadline.js";
import { withProcessTap, type ProcessTap } from "../supervise/taps.js";
import type { Logger } from "../log.js";
import { countCleanup, type AnyLaneDriver, type LaneContext, type LaneSession, type PermissionAsk, type PermissionDecision, type PromptRequest, type TurnInput } from "../lanes/lane.js";
import { promptContent } from "../lanes/prompt-content.js";
import { appendBounded } from "./bounded-text.js";
import type { HostChannel } from "./host-channel.js";
import { PermissionBroker } from "./permissions.js";
import { asApiRefusal } from "../lanes/api-refusals.js";
import { asAuthFailure } from "../lanes/credential-hints.js";
import { asUntrustedFolder } from "../lanes/gemini-trust.js";
import { SessionBudget } from "./budget.js";
import { tracePermission, type SessionTracer, type TurnSpan } from "../telemetry/tracing.js";
import { trafficSince, type CustodyTraffic } from "../telemetry/facts.js";

/** Between two assistant messages in TurnOutcome.text (see its schema description). */
const MESSAGE_SEPARATOR = "\n\n";
const MAX_REMEMBERED_TOOL_CALLS = 10_000;

export type SessionPhase = "opening" | "idle" | "turn" | "dead" | "closing" | "closeFailed" | "closed";

export interface SessionTimings {
  /** After a cancel is delivered, how long the agent has to settle the turn. Default 10 s. */
  cancelGraceMs: number;
}

interface Turn {
  cancelled: boolean;
  abort: AbortController;
  text: string;
  /** A tool call came after the last message text: the next text starts a new message. */
  messageEnded: boolean;
  settled: boolean;
  /** Settles the host's prompt call; later calls are ignored. */
  settle: (r: { outcome?: TurnOutcome; error?: A4aaError }) => void;
  done: Promise<void>;
  graceTimer?: NodeJS.Timeout;
  /** R-BUDGET-1: the turn passed a budget and was cancelled for it; it ends with this error. */
  overrun?: A4aaError;
  budgetTimer?: NodeJS.Timeout;
  span?: TurnSpan;
  /** A tool call was seen: the agent may have acted before a failure. */
  acted: boolean;
}

export interface SessionOptions {
  id: string;
  host: HostChannel;
  logger: Logger;
  timings: SessionTimings;
  /** The session's permission preset, resolved. */
  permission: PermissionPreset;
  /** --permission-timeout. */
  permissionTimeoutMs?: number;
  /** Sees every process the session's lane starts (the recorder's agent side). */
  tap?: ProcessTap;
  /** R-BUDGET-1: `options.budget`. */
  budget?: Budget;
  /** R-OTEL-1: turns, tool calls and permission waits as spans (only when export is configured). */
  tracer?: SessionTracer;
  /** R-CUSTODY-1: what the custody proxy carried for this session so far (a turn's span gets its part). */
  custody?: Readonly<CustodyTraffic>;
}

/** What a lane is handed besides what the session itself provides. */
export type LaneSetup = Omit<LaneContext<AgentSpec>, "sessionId" | "emit" | "newMessage" | "askPermission" | "signal" | "logger" | "gate">;

export class Session {
  readonly id: string;
  private stateNow: SessionPhase = "opening";
  private lane: LaneSession | null = null;
  private opening: Promise<LaneSession> | null = null;
  /** Aborted when closing starts; lanes see it as ctx.signal. */
  private readonly lifetime = new AbortController();
  private readonly broker: PermissionBroker;
  private readonly logger: Logger;
  private turn: Turn | null = null;
  private closing: Promise<ProcessCounts> | null = null;
  /** R-SEQ-1: seq is assigned here, where events are already in order, and nowhere else. */
  readonly journal = new Journal();
  /** Tool calls the host has seen announced (insertion order, so the oldest go first). */
  private readonly announced = new Set<string>();

  /** The spec the lane was opened with (for the words of an auth failure). */
  private spec: AgentSpec | undefined;
  private cwd: string | undefined;
  private model: string | undefined;

  private readonly budget: SessionBudget | undefined;

  constructor(private readonly o: SessionOptions) {
    this.budget = o.budget ? new SessionBudget(o.budget) : undefined;
    this.id = o.id;
    this.logger = o.logger;
    this.broker = new PermissionBroker({
      sessionId: o.id,
      preset: o.permission,
      host: o.host,
      emit: this.emit,
      logger: o.logger,
      timeoutMs: o.permissionTimeoutMs,
    });
  }

  get state(): SessionPhase {
    return this.stateNow;
  }

  /**
   * Starts the agent through its lane. The session takes events from the first moment (the
   * handshake's come before the open answer); a close meanwhile waits for the opening, and
   * then the open fails with session_closed.
   */
  async open(driver: AnyLaneDriver, setup: LaneSetup): Promise<LaneSession> {
    this.spec = setup.spec;
    this.cwd = setup.cwd;
    this.model = setup.options.model;
    const ctx: LaneContext<AgentSpec> = {
      ...setup,
      sessionId: this.id,
      logger: this.o.logger,
      gate: this.o.host.gate,
      emit: this.emit,
      newMessage: () => {
        if (this.turn && !this.turn.settled) this.turn.messageEnded = true;
      },
      askPermission: this.askPermission,
      signal: this.lifetime.signal,
    };
    // The lane is recorded as soon as it exists, so a close waiting for the opening ends it.
    this.opening = withProcessTap(this.o.tap, () => driver.open(ctx)).then(
      (lane) => (this.lane = lane),
      (err: unknown) => {
        throw err instanceof A4aaError ? this.agentsWords(err, false) : err;
      },
    );
    const lane = await this.opening;
    if (this.closingStarted) {
      // The sidecar began shutting down while the agent was starting.
      await this.close().catch(() => undefined);
      throw errors.sessionClosed("open", "the sidecar shut down while the session was opening");
    }
    this.stateNow = "idle";
    return lane;
  }

  /** A lane's error that is the agent's own account of a known failure (no credentials, a
   * refusal of the model API, an untrusted folder), as its typed code; one classification for
   * every lane. `acted`: a tool call was seen in the turn. */
  private agentsWords(err: A4aaError, acted: boolean): A4aaError {
    return asApiRefusal(asUntrustedFolder(this.spec, asAuthFailure(this.spec, err, acted), this.cwd));
  }

  /**
   * Lanes emit through here: events go out in order, and the turn's text is collected. An
   * update of a tool call the host never saw announced is preceded by its toolCall.
   */
  private readonly emit = (event: AgentEvent): void => {
    if (this.state === "closed") return;
    if (event.type === "toolCallUpdate" && !this.announced.has(event.toolCallId)) {
      this.send({ type: "toolCall", toolCallId: event.toolCallId, title: event.title ?? "", kind: "other", status: event.status ?? "pending" });
    }
    this.send(event);
  };

  private send(event: AgentEvent): void {
    const turn = this.turn && !this.turn.settled ? this.turn : null;
    if (event.type === "toolCall") {
      this.announced.add(event.toolCallId);
      if (this.announced.size > MAX_REMEMBERED_TOOL_CALLS) this.announced.delete(this.announced.values().next().value as string);
    }
    if (turn && (event.type === "toolCall" || event.type === "toolCallUpdate")) turn.messageEnded = turn.acted = true;
    if (turn && event.type === "messageChunk") {
      // One blank line between two messages (TurnOutcome.text); the chunks go out as sent.
      if (turn.messageEnded && turn.text && event.text) turn.text = appendBounded(turn.text, MESSAGE_SEPARATOR);
      if (event.text) turn.messageEnded = false;
      turn.text = appendBounded(turn.text, event.text);
    }
    this.o.host.event(this.id, event, this.journal.append(event));
    turn?.span?.event(event);
    if (turn && event.type === "usage" && this.budget && !turn.overrun) {
      const over = this.budget.observe(event);
      if (over) this.overrun(turn, over);
    }
  }

  /** R-BUDGET-1: cancel the turn as session/cancel does; it ends with the overrun. */
  private overrun(turn: Turn, err: A4aaError): void {
    if (turn.settled || turn.overrun) return;
    turn.overrun = err;
    this.logger.warn(err.detail ?? err.message, this.id);
    void this.cancel();
  }

  private readonly askPermission = (ask: PermissionAsk, withdrawn?: AbortSignal): Promise<PermissionDecision> => {
    // The host is asked about tool calls it has seen: announce one the agent never did.
    if (this.state !== "closed" && !this.announced.has(ask.toolCallId)) {
      this.send({ type: "toolCall", toolCallId: ask.toolCallId, title: ask.title, kind: ask.kind, status: "pending" });
    }
    // A request outside a turn (or after cancel) can only be cancelled.
    const turnSignal = this.turn && !this.turn.settled ? this.turn.abort.signal : AbortSignal.abort();
    const signal = this.lifetime.signal.aborted ? this.lifetime.signal : turnSignal;
    const decided = this.broker.decide(ask, withdrawn ? AbortSignal.any([signal, withdrawn]) : signal);
    // Who decided: a preset or a timeout is the policy; an answer is the host's.
    return tracePermission(this.turn && !this.turn.settled ? this.turn.span : undefined, ask, decided, this.o.permission === "ask" ? "host" : "policy");
  };

  private get closingStarted(): boolean {
    return this.state === "closing" || this.state === "closeFailed" || this.state === "closed";
  }

  async prompt(request: PromptRequest): Promise<TurnOutcome> {
    if (this.closingStarted) {
      throw errors.sessionClosing("prompt", `session ${this.id} is closing; open a new session`);
    }
    if (this.state === "turn") {
      throw errors.turnInProgress("prompt", `session ${this.id} is already running a turn; wait for it or cancel it`);
    }
    if (this.state === "dead" || !this.lane || !this.lane.alive) {
      this.stateNow = "dead";
      throw errors.agentExited("prompt", `the agent of session ${this.id} has exited; only session/close is possible`, {
        uncertainEffect: false,
      });
    }
    const { text, content, ...overrides } = request;
    const caps = this.lane.capabilities;
    const agent = this.lane.agentInfo?.name ?? `this ${caps.lane} agent`;
    let input: TurnInput = { ...overrides, ...promptContent({ text, content }, caps.content, agent) };
    const spent = this.budget?.refusal();
    if (spent) throw spent;
    this.lane.checkTurn(input);
    const lane = this.lane;
    this.stateNow = "turn";
    let settle!: Turn["settle"];
    const result = new Promise<{ outcome?: TurnOutcome; error?: A4aaError }>((resolve) => {
      settle = resolve;
    });
    const custodyAtStart = this.o.tracer && this.o.custody ? { ...this.o.custody } : undefined;
    const turn: Turn = {
      cancelled: false,
      abort: new AbortController(),
      text: "",
      messageEnded: false,
      acted: false,
      settled: false,
      settle: (r) => {
        if (turn.settled) return;
        turn.settled = true;
        if (turn.graceTimer) clearTimeout(turn.graceTimer);
        if (turn.budgetTimer) clearTimeout(turn.budgetTimer);
        this.budget?.endTurn(r.outcome?.usage);
        // A turn cancelled for its budget fails with the overrun, however the agent ended it.
        if (turn.overrun && r.outcome) r = { error: turn.overrun };
        turn.span?.end({ ...r, ...(custodyAtStart ? { custody: trafficSince(custodyAtStart, this.o.custody!) } : {}) });
        turn.abort.abort(new Error("the turn ended"));
        if (this.turn === turn) this.turn = null;
        if (this.state === "turn") this.stateNow = lane.alive ? "idle" : "dead";
        settle(r);
      },
      done: result.then(() => undefined),
    };
    if (this.o.tracer && this.spec) {
      turn.span = this.o.tracer.turn({
        sessionId: this.id,
        agent: this.spec.id,
        lane: this.spec.lane,
        conversationId: this.lane?.nativeSessionId ?? undefined,
        model: input.model ?? this.model,
        traceparent: input.traceparent,
        tracestate: input.tracestate,
        text: text ?? "",
      });
      // R-OTEL-2: the agent's turn is a child of this turn's span.
      input = { ...input, traceparent: turn.span.traceparent };
    }
    this.turn = turn;
    const maxTurnMs = this.budget?.maxTurnMs;
    if (maxTurnMs !== undefined) {
      const started = performance.now();
      turn.budgetTimer = setTimeout(() => this.overrun(turn, this.budget!.turnTooLong(Math.round(performance.now() - started))), maxTurnMs);
    }
    withProcessTap(this.o.tap, () => lane.prompt(input)).then(
      (outcome) => {
        const o: TurnOutcome = turn.cancelled ? { ...outcome, stopReason: "cancelled" } : outcome;
        if (o.text === undefined) o.text = turn.text;
        turn.settle({ outcome: o });
      },
      (err: unknown) => {
        if (turn.cancelled) {
          this.logger.debug(`turn ended after cancel with ${(err as Error)?.message ?? err}; reported as cancelled`, this.id);
          turn.settle({ outcome: { stopReason: "cancelled", text: turn.text } });
        } else {
          turn.settle({ error: err instanceof A4aaError ? this.agentsWords(err, turn.acted) : errors.internalError("prompt", String((err as Error)?.stack ?? err)) });
        }
      },
    );
    const r = await result;
    if (r.error) throw r.error;
    return r.outcome!;
  }

  /**
   * Delivers a cancel of the running turn; resolves once the agent has been told. The agent
   * then has the grace period to end the turn; after it the turn is settled for it.
   */
  async cancel(armGrace = true): Promise<void> {
    const turn = this.turn;
    if (!turn || turn.settled || !this.lane) return;
    if (turn.cancelled) return;
    turn.cancelled = true;
    // Pending permission requests of the turn fail closed now.
    turn.abort.abort(new Error("the turn was cancelled"));
    try {
      await this.lane.cancel();
    } catch (e) {
      this.logger.warn(`delivering cancel to the agent failed: ${(e as Error).message}`, this.id);
    }
    if (!turn.settled && armGrace) {
      turn.graceTimer = setTimeout(() => {
        this.logger.warn(`the agent did not end the cancelled turn within ${this.o.timings.cancelGraceMs} ms; reporting it cancelled`, this.id);
        turn.settle({ outcome: { stopReason: "cancelled", text: turn.text } });
      }, this.o.timings.cancelGraceMs);
    }
  }

  /**
   * R-CLOSE-1..3: concurrent closes share one cleanup; a failed cleanup can be retried.
   * Resolves with what the cleanup ended (R-SUP-6).
   */
  close(): Promise<ProcessCounts> {
    this.closing ??= countCleanup(() => this.runClose())
      .then((r) => r.processes)
      .finally(() => {
        if (this.state === "closeFailed") this.closing = null;
      });
    return this.closing;
  }

  private async runClose(): Promise<void> {
    this.stateNow = "closing";
    this.lifetime.abort(new Error("the session is closing"));
    if (this.opening) await this.opening.catch(() => undefined);
    const turn = this.turn;
    if (turn && !turn.settled && this.lane) {
      // R-CLOSE-1: the turn ends `cancelled` if the agent acknowledges within the grace
      // period, else with session_closed.
      await this.cancel(false);
      await waitAtMost(turn.done, this.o.timings.cancelGraceMs);
      turn.settle({ error: errors.sessionClosed("prompt", `session ${this.id} was closed during the turn`, { uncertainEffect: true }) });
    }
    if (!this.lane) {
      this.stateNow = "closed";
      return;
    }
    const r = await this.lane.close();
    if (!r.clean) {
      this.stateNow = "closeFailed";
      throw errors.cleanupFailed("close", r.detail ?? `processes of session ${this.id} survived the stop ladder`, {
        retryable: true,
      });
    }
    this.stateNow = "closed";
  }
}
