// `generic`: any program. The prompt is its last argument (or a line on its stdin); what
// it prints becomes messageChunks and its exit ends the turn (code 0: endTurn). With
// `transport: "pty"` it runs under a pseudo-terminal: escape sequences are stripped, the
// typed prompt's echo is dropped, and the turn also ends when the output has been quiet
// for `pty.idleMs`.
import type { AgentInfo, Capabilities, CliAgentSpec, SessionState, TurnOutcome } from "../../../../generated/ts/types.js";
import { errors } from "../../../errors.js";
import type { LaneContext, LaneSession, TurnInput } from "../../lane.js";
import { startPty, type PtyProcess, type StopResult } from "../../../supervise/spawn.js";
import { pauseWithGate } from "../../../transport/flow-gate.js";
import { blocksText } from "../../content-text.js";
import { AnsiStripper } from "../ansi.js";
import { checkSelectors, type SelectorRules } from "../selector-rules.js";
import { capabilitiesOf, KILL_GRACE_MS, type PerTurnDriver } from "../turn-session.js";
import type { TextParser } from "../turn-process.js";
import { DEFAULTS } from "../../../../generated/ts/limits.js";

export const genericRules: SelectorRules = {
  model: false,
  mode: false,
  effort: false,
  // The program decides what it runs; nothing can ask the host.
  permission: ["readOnly"],
  turnModel: false,
  turnEffort: false,
};

const withNewline = (t: string) => (t.endsWith("\n") ? t : t + "\n");

export const genericDriver: PerTurnDriver = {
  name: "generic",
  rules: genericRules,
  resume: false,
  command: ({ ctx, input }) =>
    ctx.spec.promptVia === "stdin" ? { args: [], tail: [], stdin: withNewline(input.text) } : { args: [], tail: [input.text] },
  parser: (): TextParser => ({
    kind: "text",
    text: (chunk, sink) => sink.emit({ type: "messageChunk", text: chunk }),
    exited: (exit) => (exit.code === 0 ? { outcome: { stopReason: "endTurn" } } : undefined),
  }),
};

const DEFAULT_COLS: number = DEFAULTS.PtyOptions.cols;
const DEFAULT_ROWS: number = DEFAULTS.PtyOptions.rows;
const DEFAULT_IDLE_MS: number = DEFAULTS.PtyOptions.idleMs;
/** After the program exits, how long the PTY may still deliver buffered output. */
const PTY_FLUSH_MS = 100;

/** A program under a PTY, one per turn. */
export class PtyGenericSession implements LaneSession {
  readonly nativeSessionId = null;
  readonly capabilities: Capabilities = capabilitiesOf(genericRules, false, false);
  readonly agentInfo: AgentInfo | null = null;
  readonly sessionState: SessionState | null = null;
  alive = true;
  private proc: PtyProcess | null = null;
  private cancelled = false;
  private lastStop: StopResult | null = null;

  constructor(private readonly ctx: LaneContext<CliAgentSpec>) {}

  checkTurn(input: TurnInput): void {
    checkSelectors("generic", genericRules, { model: input.model, effort: input.effort }, "prompt");
  }

  async prompt(input: TurnInput): Promise<TurnOutcome> {
    const { ctx } = this;
    const spec = ctx.spec;
    this.cancelled = false;
    const viaStdin = spec.promptVia === "stdin";
    input = { ...input, text: blocksText(input.blocks) };
    const proc = await startPty({
      program: spec.command.program,
      args: [...spec.command.args, ...(spec.extraArgs ?? []), ...(viaStdin ? [] : [input.text])],
      cwd: ctx.cwd,
      env: { TERM: "xterm-256color", ...ctx.env },
      name: spec.id,
      cols: spec.pty?.cols ?? DEFAULT_COLS,
      rows: spec.pty?.rows ?? DEFAULT_ROWS,
      wrapper: ctx.sandbox?.agent,
    });
    this.proc = proc;
    const idleMs = spec.pty?.idleMs ?? DEFAULT_IDLE_MS;
    const max = ctx.maxOutputBytes;
    const stripper = new AnsiStripper();
    // What the terminal echoes of the typed prompt (its line discipline, not the program).
    let echo = viaStdin ? input.text.replace(/\r\n?/g, "\n") + "\n" : "";
    let total = 0;
    let lastData = Date.now();
    let finish!: (how: "idle" | "limit") => void;
    const finished = new Promise<"idle" | "limit">((r) => (finish = r));
    let idleTimer: NodeJS.Timeout | undefined;
    const armIdle = () => {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => finish("idle"), idleMs);
    };
    const offData = proc.onData((d) => {
      lastData = Date.now();
      total += Buffer.byteLength(d);
      if (total > max) return finish("limit");
      let text = stripper.push(d);
      while (echo && text) {
        if (text[0] !== echo[0]) {
          echo = "";
          break;
        }
        text = text.slice(1);
        echo = echo.slice(1);
      }
      if (text) ctx.emit({ type: "messageChunk", text });
      armIdle();
    });
    const detachGate = pauseWithGate(ctx.gate, proc);
    if (this.cancelled) this.deliverCancel(proc);
    if (viaStdin) proc.write(input.text.replace(/\r?\n/g, "\r") + "\r");
    armIdle();
    try {
      const how = await Promise.race([finished, proc.exited.then(() => "exit" as const)]);
      if (how === "exit") {
        // The PTY may still hold output the program wrote just before exiting.
        while (Date.now() - lastData < PTY_FLUSH_MS) await new Promise((r) => setTimeout(r, PTY_FLUSH_MS / 2));
      }
      if (idleTimer) clearTimeout(idleTimer);
      const stop = await proc.stop({ stdinGraceMs: how === "idle" && !this.cancelled ? 300 : 0, termGraceMs: KILL_GRACE_MS });
      this.lastStop = stop;
      if (!stop.clean) ctx.logger.warn(`processes ${stop.survivors.join(", ")} of ${spec.command.program} survived the stop ladder`, ctx.sessionId);
      if (this.cancelled) return { stopReason: "cancelled" };
      if (how === "limit") throw errors.outputLimit("prompt", max);
      if (how === "idle" || proc.exit?.code === 0) return { stopReason: "endTurn" };
      this.alive = false;
      throw errors.agentExited("prompt", `${spec.command.program} ${proc.exitSummary("before ending the turn")}`);
    } finally {
      if (idleTimer) clearTimeout(idleTimer);
      offData();
      detachGate();
      if (this.proc === proc) this.proc = null;
    }
  }

  async cancel(): Promise<void> {
    this.cancelled = true;
    if (this.proc) this.deliverCancel(this.proc);
  }

  private deliverCancel(proc: PtyProcess): void {
    if (!proc.running) return;
    // The stop ladder notes the tree first (descendants that left the group), then SIGTERMs it now.
    void proc.interrupt(KILL_GRACE_MS);
  }

  async close(): Promise<{ clean: boolean; detail?: string }> {
    const proc = this.proc;
    const r = proc ? await proc.stop({ stdinGraceMs: 0, termGraceMs: KILL_GRACE_MS }) : this.lastStop;
    if (r && !r.clean) return { clean: false, detail: `processes ${r.survivors.join(", ")} of ${this.ctx.spec.command.program} survived the stop ladder` };
    return { clean: true };
  }
}
