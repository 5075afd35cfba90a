// One turn of a per-turn CLI: start the program on pipes with stdin closed (or holding
// the prompt), map its stdout (JSON lines or plain text) to events, end the turn at the
// terminal event — then a short grace and the whole process group is ended — or at the
// process's exit: `cancelled` if the host cancelled it, else `agent_exited`.
import { StringDecoder } from "node:string_decoder";
import { forwardStderr } from "../stderr-events.js";
import type { AgentEvent, CliAgentSpec, TurnOutcome } from "../../../generated/ts/types.js";
import { errors, type A4aaError } from "../../errors.js";
import type { LaneContext } from "../lane.js";
import { waitAtMost } from "../../supervise/deadline.js";
import { startPipe, type ExitInfo, type PipeProcess, type StopResult } from "../../supervise/spawn.js";
import { LineReader } from "../../transport/line-reader.js";
import { lineTap } from "../../supervise/taps.js";
import { pauseWithGate } from "../../transport/flow-gate.js";
import { parseJsonLine } from "./loose-json.js";

export type TurnEnd = { outcome: TurnOutcome } | { error: A4aaError };

/** Where a parser sends what it understood. */
export interface TurnSink {
  emit(event: AgentEvent): void;
  /** The terminal event: the turn's result. Only the first call counts. */
  end(result: TurnEnd): void;
  /** The CLI told its session id. */
  sessionId(id: string): void;
}

/** Maps a CLI's JSON lines; a line that is not JSON is forwarded as `raw` by the runner. */
export interface LineParser {
  kind: "lines";
  line(msg: unknown, sink: TurnSink): void;
  /** The process exited without a terminal event: an end when exiting *is* the end. */
  exited?(exit: ExitInfo, sink: TurnSink): TurnEnd | undefined;
}

/** Maps plain-text stdout (the generic driver). */
export interface TextParser {
  kind: "text";
  text(chunk: string, sink: TurnSink): void;
  exited(exit: ExitInfo, sink: TurnSink): TurnEnd | undefined;
}

export interface TurnProcessSpec {
  ctx: LaneContext<CliAgentSpec>;
  /** Everything after the program. */
  args: string[];
  env: Record<string, string>;
  /** Written to stdin, which is then closed; absent: stdin is closed at once. */
  stdin?: string;
  parser: LineParser | TextParser;
  /** After the terminal event, how long the CLI may take to exit by itself. */
  endGraceMs: number;
  /** After SIGTERM, how long before SIGKILL. */
  killGraceMs: number;
  onSessionId(id: string): void;
}

/** How long stdout may stay open after the process exited (a grandchild can hold it). */
const DRAIN_AFTER_EXIT_MS = 500;

export class TurnProcess {
  private proc: PipeProcess | null = null;
  private cancelled = false;
  /** Set when the last stop left processes behind (close reports it). */
  lastStop: StopResult | null = null;

  constructor(private readonly s: TurnProcessSpec) {}

  get isCancelled(): boolean {
    return this.cancelled;
  }

  async run(): Promise<TurnOutcome> {
    const { ctx, parser } = this.s;
    const spec = ctx.spec;
    if (this.cancelled) return { stopReason: "cancelled" };
    const proc = await startPipe({ program: spec.command.program, args: this.s.args, cwd: ctx.cwd, env: this.s.env, name: spec.id, wrapper: ctx.sandbox?.agent });
    this.proc = proc;
    ctx.logger.debug(`started ${spec.command.program} (pid ${proc.pid}) ${JSON.stringify(this.s.args)}`, ctx.sessionId);
    if (this.cancelled) this.deliverCancel(proc);
    const offStderr = forwardStderr(proc, ctx.gate, () => true, ctx.emit);
    const tap = lineTap(proc);
    if (this.s.stdin !== undefined) {
      tap?.("stdin", this.s.stdin);
      proc.stdin.end(this.s.stdin);
    }
    else proc.stdin.end();

    const max = ctx.maxOutputBytes;
    let endResult: TurnEnd | undefined;
    let markEnded!: () => void;
    const ended = new Promise<void>((r) => (markEnded = r));
    const sink: TurnSink = {
      emit: (e) => ctx.emit(e),
      end: (r) => {
        if (endResult) return;
        endResult = r;
        markEnded();
      },
      sessionId: (id) => this.s.onSessionId(id),
    };
    const mapLine = (buf: Buffer) => {
      tap?.("stdout", buf.toString("utf8"));
      const msg = parseJsonLine(buf, (text) => ctx.emit({ type: "raw", source: "stdout", payload: text }));
      if (msg === undefined || parser.kind !== "lines") return;
      try {
        parser.line(msg, sink);
      } catch (e) {
        ctx.logger.warn(`could not map a line of ${spec.command.program}: ${(e as Error).message}`, ctx.sessionId);
        ctx.emit({ type: "raw", source: "stdout", payload: msg });
      }
    };
    let overLimit = false;
    const limitHit = () => {
      overLimit = true;
      sink.end({ error: errors.outputLimit("prompt", max) });
    };
    const reader = new LineReader({ maxLineBytes: max, onLine: mapLine, onOversize: limitHit });
    const decoder = new StringDecoder("utf8");
    let total = 0;
    proc.stdout.on("data", (chunk: Buffer) => {
      if (overLimit) return;
      total += chunk.length;
      if (total > max) return limitHit();
      if (parser.kind === "lines") reader.push(chunk);
      else {
        const t = decoder.write(chunk);
        if (t) tap?.("stdoutText", t);
        if (t) parser.text(t, sink);
      }
    });
    const stdoutEnded = new Promise<void>((resolve) => {
      let done = false;
      const fin = () => {
        if (done) return;
        done = true;
        if (!overLimit) {
          if (parser.kind === "lines") reader.end();
          else {
            const t = decoder.end();
            if (t) tap?.("stdoutText", t);
            if (t) parser.text(t, sink);
          }
        }
        resolve();
      };
      proc.stdout.once("end", fin);
      proc.stdout.once("close", fin);
    });
    const detachGate = pauseWithGate(ctx.gate, proc.stdout);

    try {
      await Promise.race([ended, proc.exited]);
      if (!endResult) await waitAtMost(stdoutEnded, DRAIN_AFTER_EXIT_MS);
      let result: TurnEnd;
      if (endResult) result = endResult;
      else if (this.cancelled) result = { outcome: { stopReason: "cancelled" } };
      else {
        result = parser.exited?.(proc.exit!, sink) ?? {
          error: errors.agentExited("prompt", `${spec.command.program} ${proc.exitSummary("before ending the turn")}`),
        };
      }
      // The terminal event ends the turn: the CLI gets a short grace to exit, then the group is ended.
      const quick = this.cancelled || overLimit || "error" in result;
      const stop = await proc.stop({ stdinGraceMs: quick ? 0 : this.s.endGraceMs, termGraceMs: this.s.killGraceMs });
      this.lastStop = stop;
      if (!stop.clean) ctx.logger.warn(`processes ${stop.survivors.join(", ")} of ${spec.command.program} survived the stop ladder`, ctx.sessionId);
      if ("error" in result) throw result.error;
      return result.outcome;
    } finally {
      detachGate();
      offStderr();
    }
  }

  /** SIGTERM to the process tree now; SIGKILL after the grace period (the stop ladder). */
  async cancel(): Promise<void> {
    this.cancelled = true;
    if (this.proc) this.deliverCancel(this.proc);
  }

  private deliverCancel(proc: PipeProcess): void {
    if (!proc.running) return;
    // The stop ladder notes the tree first (descendants that left the group), then SIGTERMs it now.
    void proc.interrupt(this.s.killGraceMs);
  }

  /** Ends whatever is left of the process (close). */
  async stop(): Promise<StopResult | null> {
    if (!this.proc) return this.lastStop;
    return this.proc.stop({ stdinGraceMs: 0, termGraceMs: this.s.killGraceMs });
  }
}

