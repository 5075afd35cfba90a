// One session's lifecycle: opening → idle ⇄ turn → closing → closed (or dead after the
// agent crashed: good only for close). The rules every lane shares live here: one turn
// at a time, cancel settles as `cancelled` whatever the agent answers, close ends the
// turn and then the process tree before it answers.
import type { AgentEvent, ProcessCounts, TurnOutcome } from "../../generated/ts/types.js";
import { A4aaError } from "../errors.js";
import type { Logger } from "../log.js";
import { countCleanup, type LaneSession, type PermissionAsk, type PermissionDecision, type TurnInput } from "../lanes/lane.js";
import type { PermissionBroker } from "./permissions.js";

export type SessionState = "opening" | "idle" | "turn" | "dead" | "closing" | "closeFailed" | "closed";

export interface SessionTimings {
  /** After a cancel is delivered, how long the agent has to settle the turn. Default 10 s. */
  cancelGraceMs: number;
}

interface Turn {
  cancelled: boolean;
  abort: AbortController;
  text: string;
  settled: boolean;
  /** Settles the host's prompt call; later calls are ignored. */
  settle: (r: { outcome?: TurnOutcome; error?: A4aaError }) => void;
  done: Promise<void>;
  graceTimer?: NodeJS.Timeout;
}

export class Session {
  state: SessionState = "opening";
  lane: LaneSession | null = null;
  /** Aborted when closing starts; lanes see it as ctx.signal. */
  readonly lifetime = new AbortController();
  private turn: Turn | null = null;
  private closing: Promise<ProcessCounts> | null = null;
  broker!: PermissionBroker;

  constructor(
    readonly id: string,
    private readonly logger: Logger,
    private readonly sendEvent: (sessionId: string, event: AgentEvent) => void,
    private readonly timings: SessionTimings,
  ) {}

  /** Lanes emit through here: events go out in order, and the turn's text is collected. */
  emit = (event: AgentEvent): void => {
    if (this.state === "closed") return;
    if (event.type === "messageChunk" && this.turn && !this.turn.settled) this.turn.text += event.text;
    this.sendEvent(this.id, event);
  };

  askPermission = (ask: PermissionAsk, withdrawn?: AbortSignal): Promise<PermissionDecision> => {
    // A request outside a turn (or after cancel) can only be cancelled.
    const turnSignal = this.turn && !this.turn.settled ? this.turn.abort.signal : AbortSignal.abort();
    const signal = this.lifetime.signal.aborted ? this.lifetime.signal : turnSignal;
    return this.broker.decide(ask, withdrawn ? AbortSignal.any([signal, withdrawn]) : signal);
  };

  get closingStarted(): boolean {
    return this.state === "closing" || this.state === "closeFailed" || this.state === "closed";
  }

  async prompt(input: TurnInput): Promise<TurnOutcome> {
    if (this.closingStarted) {
      throw new A4aaError("session_closing", "prompt", `session ${this.id} is closing; open a new session`);
    }
    if (this.state === "turn") {
      throw new A4aaError("turn_in_progress", "prompt", `session ${this.id} is already running a turn; wait for it or cancel it`);
    }
    if (this.state === "dead" || !this.lane || !this.lane.alive) {
      this.state = "dead";
      throw new A4aaError("agent_exited", "prompt", `the agent of session ${this.id} has exited; only session/close is possible`, {
        uncertainEffect: false,
      });
    }
    this.lane.checkTurn(input);
    const lane = this.lane;
    this.state = "turn";
    let settle!: Turn["settle"];
    const result = new Promise<{ outcome?: TurnOutcome; error?: A4aaError }>((resolve) => {
      settle = resolve;
    });
    const turn: Turn = {
      cancelled: false,
      abort: new AbortController(),
      text: "",
      settled: false,
      settle: (r) => {
        if (turn.settled) return;
        turn.settled = true;
        if (turn.graceTimer) clearTimeout(turn.graceTimer);
        turn.abort.abort(new Error("the turn ended"));
        if (this.turn === turn) this.turn = null;
        if (this.state === "turn") this.state = lane.alive ? "idle" : "dead";
        settle(r);
      },
      done: result.then(() => undefined),
    };
    this.turn = turn;
    lane.prompt(input).then(
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
          turn.settle({ error: err instanceof A4aaError ? err : new A4aaError("internal_error", "prompt", String((err as Error)?.stack ?? err)) });
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
        this.logger.warn(`the agent did not end the cancelled turn within ${this.timings.cancelGraceMs} ms; reporting it cancelled`, this.id);
        turn.settle({ outcome: { stopReason: "cancelled", text: turn.text } });
      }, this.timings.cancelGraceMs);
    }
  }

  /**
   * R-CLOSE-1..3: concurrent closes share one cleanup; a failed cleanup can be retried.
   * Resolves with what the cleanup ended (R-SUP-6).
   */
  close(opening?: Promise<unknown>): Promise<ProcessCounts> {
    this.closing ??= countCleanup(() => this.runClose(opening))
      .then((r) => r.processes)
      .finally(() => {
        if (this.state === "closeFailed") this.closing = null;
      });
    return this.closing;
  }

  private async runClose(opening?: Promise<unknown>): Promise<void> {
    this.state = "closing";
    this.lifetime.abort(new Error("the session is closing"));
    if (opening) await opening.catch(() => undefined);
    const turn = this.turn;
    if (turn && !turn.settled && this.lane) {
      // R-CLOSE-1: the turn ends `cancelled` if the agent acknowledges within the grace
      // period, else with session_closed.
      await this.cancel(false);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([turn.done, new Promise((r) => (timer = setTimeout(r, this.timings.cancelGraceMs)))]);
      clearTimeout(timer);
      turn.settle({ error: new A4aaError("session_closed", "prompt", `session ${this.id} was closed during the turn`, { uncertainEffect: true }) });
    }
    if (!this.lane) {
      this.state = "closed";
      return;
    }
    const r = await this.lane.close();
    if (!r.clean) {
      this.state = "closeFailed";
      throw new A4aaError("cleanup_failed", "close", r.detail ?? `processes of session ${this.id} survived the stop ladder`, {
        retryable: true,
      });
    }
    this.state = "closed";
  }
}
