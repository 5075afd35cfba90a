// Claude Code and Qwen Code in stream-json mode: one process per session, each prompt a
// `user` line on its stdin, the turn ended by `result`. The control protocol carries the
// handshake (`initialize`), permission requests (`can_use_tool` → permission/request,
// answered allow/deny, fail-closed) and cancel (`interrupt`, then the process group is
// ended after a grace period; the next prompt resumes the session in a new process).
// Over 350 lines: one class; its banners (the process, stdout, LaneSession) share the turn,
// the pending control requests and the process they are about.
import { randomUUID } from "node:crypto";
import { forwardStderr } from "../stderr-events.js";
import type { AgentInfo, Capabilities, CliAgentSpec, SessionState, TurnOutcome } from "../../../generated/ts/types.js";
import { type A4aaError, errors } from "../../errors.js";
import { handshakeDeadlineMs, handshakeTimeoutError } from "../handshake-deadline.js";
import type { LaneContext, LanePermissionOption, LaneSession, TurnInput } from "../lane.js";
import { waitAtMost, withTimeout } from "../../supervise/deadline.js";
import { startPipe, type ExitInfo, type PipeProcess } from "../../supervise/spawn.js";
import { LineReader } from "../../transport/line-reader.js";
import { lineTap, type LineTap } from "../../supervise/taps.js";
import { pauseWithGate } from "../../transport/flow-gate.js";
import { ClaudeStreamMapper, claudeResult, denialEvents } from "./claude-stream.js";
import { arr, parseJsonLine, isObj, json, obj, str, type Obj } from "./loose-json.js";
import { checkSelectors } from "./selector-rules.js";
import { toolKind, toolTitle } from "./tool-calls.js";
import { diffUsage } from "./usage.js";
import type { StreamJsonFlavor } from "./stream-json-flavor.js";
import { userContent } from "./user-content.js";
import type { TurnEnd } from "./turn-process.js";
import { capabilitiesOf, KILL_GRACE_MS } from "./turn-session.js";
import type { Usage } from "../../../generated/ts/types.js";

/** After `interrupt`, how long before the process group is ended. */
export const INTERRUPT_GRACE_MS = 2000;
/** Closing stdin ends these CLIs; how long they may take. */
const STDIN_GRACE_MS = 1500;

interface Turn {
  cancelled: boolean;
  bytes: number;
  result?: TurnEnd;
  settle(r: TurnEnd): void;
  ended: Promise<TurnEnd>;
  timer?: NodeJS.Timeout;
  /** The process must be ended after this turn (cancel, output limit). */
  endProcess: boolean;
}

const PERMISSION_OPTIONS: LanePermissionOption[] = [
  { optionId: "allow", name: "Allow", kind: "allowOnce" },
  { optionId: "allowAlways", name: "Always allow", kind: "allowAlways" },
  { optionId: "deny", name: "Deny", kind: "rejectOnce" },
];

export class StreamJsonSession implements LaneSession {
  nativeSessionId: string;
  readonly capabilities: Capabilities;
  readonly agentInfo: AgentInfo | null = null;
  readonly sessionState: SessionState | null = null;
  alive = true;
  private proc: PipeProcess | null = null;
  /** The recorder's tap of the process's lines, if the session is recorded. */
  private tap: LineTap | undefined;
  /** The session exists on the CLI's side: a new process must resume it. */
  private existing: boolean;
  private turn: Turn | null = null;
  private readonly mapper: ClaudeStreamMapper;
  private readonly pending = new Map<string, (response: Obj) => void>();
  private counter = 0;
  private readonly decidedByHost = new Set<string>();
  private unhook: (() => void)[] = [];
  /** The last running totals (cost, or all usage) the CLI reported. */
  private lastTotal: Usage | undefined;
  private lastUnclean: string | undefined;
  /** The error a failed `result` outside a turn gave (the CLI's reason for exiting early). */
  private saidBeforeTurn: string | undefined;

  private constructor(
    private readonly ctx: LaneContext<CliAgentSpec>,
    private readonly flavor: StreamJsonFlavor,
  ) {
    this.nativeSessionId = ctx.resume ?? randomUUID();
    this.existing = ctx.resume !== undefined;
    this.capabilities = capabilitiesOf(flavor.rules, true, true, flavor.content);
    this.mapper = new ClaudeStreamMapper(
      (e) => this.ctx.emit(e),
      (id) => this.told(id),
    );
  }

  static async open(ctx: LaneContext<CliAgentSpec>, flavor: StreamJsonFlavor): Promise<StreamJsonSession> {
    const s = new StreamJsonSession(ctx, flavor);
    await s.start();
    return s;
  }

  // ---- the process -------------------------------------------------------------------

  private async start(): Promise<void> {
    const { ctx, flavor } = this;
    const spec = ctx.spec;
    const args = [...spec.command.args, ...flavor.args(ctx, { id: this.nativeSessionId, resume: this.existing }), ...(spec.extraArgs ?? [])];
    const proc = await startPipe({
      program: spec.command.program,
      args,
      cwd: ctx.cwd,
      env: { ...(flavor.env?.(ctx) ?? {}), ...ctx.env },
      name: spec.id,
      wrapper: ctx.sandbox?.agent,
    });
    this.proc = proc;
    ctx.logger.debug(`started ${spec.command.program} (pid ${proc.pid}) ${JSON.stringify(args)}`, ctx.sessionId);
    const max = ctx.maxOutputBytes;
    const tap = lineTap(proc);
    this.tap = tap;
    const reader = new LineReader({
      maxLineBytes: max,
      onLine: (line) => {
        tap?.("stdout", line.toString("utf8"));
        this.line(line);
      },
      onOversize: () => this.outputLimit(),
    });
    proc.stdout.on("data", (chunk: Buffer) => {
      const t = this.turn;
      if (t) {
        t.bytes += chunk.length;
        if (t.bytes > max) return this.outputLimit();
        if (t.result) return;
      }
      reader.push(chunk);
    });
    const stdoutEnded = new Promise<void>((resolve) =>
      proc.stdout.once("end", () => {
        reader.end();
        resolve();
      }),
    );
    this.unhook = [
      pauseWithGate(ctx.gate, proc.stdout),
      forwardStderr(proc, ctx.gate, () => !!this.turn, ctx.emit, (text) => ctx.logger.debug(`${spec.command.program} stderr: ${text}`, ctx.sessionId)),
    ];
    void proc.exited.then((exit) => this.exited(proc, exit));

    // The handshake: a CLI that cannot start (bad flag, unknown session) exits here.
    const ms = handshakeDeadlineMs(ctx);
    try {
      const answer = await withTimeout(
        Promise.race([
          this.request({ subtype: "initialize", hooks: null }),
          proc.exited.then(async () => {
            // Its last lines (the reason it gave) may still be in the pipe.
            await waitAtMost(stdoutEnded, 500);
            throw this.exitedInHandshake(proc);
          }),
        ]),
        ms,
        () =>
          handshakeTimeoutError({
            name: "the agent",
            program: spec.command.program,
            ms,
            awaiting: "initialize",
            modeHint: `stream-json, the CLI itself, e.g. \`claude\` or \`qwen\`: the ${flavor.name} driver adds the flags`,
            stopped: true,
            stderrTail: proc.stderrTail(),
          }),
      );
      if (proc.exit) throw this.exitedInHandshake(proc);
      if (answer.subtype === "error") {
        throw errors.initializeFailed("initialize", `${spec.command.program} refused initialize: ${str(answer.error) ?? JSON.stringify(answer)}`);
      }
    } catch (e) {
      await this.stopProcess(0);
      throw e;
    }
  }

  private exitedInHandshake(proc: PipeProcess): A4aaError {
    const said = this.saidBeforeTurn ? `; it said: ${this.saidBeforeTurn}` : "";
    return errors.spawnFailed(`${this.ctx.spec.command.program} ${proc.exitSummary("during its handshake")}${said}`);
  }

  private exited(proc: PipeProcess, exit: ExitInfo): void {
    if (this.proc !== proc) return;
    for (const [, resolve] of this.pending) resolve({ subtype: "error", error: "the process exited" });
    this.pending.clear();
    const t = this.turn;
    if (!t || t.result) return;
    // Lines still buffered in the pipe come first.
    setTimeout(() => {
      if (t.result) return;
      if (t.cancelled) t.settle({ outcome: { stopReason: "cancelled" } });
      else {
        this.alive = false;
        t.settle({ error: errors.agentExited("prompt", `${this.ctx.spec.command.program} ${proc.exitSummary("before ending the turn")}`) });
      }
    }, 50);
  }

  private async stopProcess(stdinGraceMs = STDIN_GRACE_MS): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    const r = await proc.stop({ stdinGraceMs, termGraceMs: KILL_GRACE_MS });
    for (const u of this.unhook) u();
    this.unhook = [];
    if (this.proc === proc) this.proc = null;
    this.lastUnclean = r.clean ? undefined : `processes ${r.survivors.join(", ")} of ${this.ctx.spec.command.program} survived the stop ladder`;
    if (!r.clean) this.ctx.logger.warn(this.lastUnclean!, this.ctx.sessionId);
  }

  private write(msg: unknown): void {
    const stdin = this.proc?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return;
    const line = JSON.stringify(msg);
    this.tap?.("stdin", line);
    stdin.write(line + "\n");
  }

  private request(request: Obj): Promise<Obj> {
    const id = `a4aa-${++this.counter}`;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.write({ type: "control_request", request_id: id, request });
    });
  }

  private told(id: string): void {
    if (id === this.nativeSessionId) return;
    this.nativeSessionId = id;
    this.ctx.emit({ type: "sessionInfo", nativeSessionId: id });
  }

  // ---- stdout ------------------------------------------------------------------------

  private line(buf: Buffer): void {
    const msg = parseJsonLine(buf, (text) => this.ctx.emit({ type: "raw", source: "stdout", payload: text }));
    if (msg === undefined) return;
    if (!isObj(msg)) {
      this.ctx.emit({ type: "raw", source: "stdout", payload: json(msg) });
      return;
    }
    switch (msg.type) {
      case "control_response": {
        const r = obj(msg.response);
        const id = str(r.request_id);
        const resolve = id ? this.pending.get(id) : undefined;
        if (resolve) {
          this.pending.delete(id!);
          resolve(r.subtype === "success" ? { subtype: "success", ...obj(r.response) } : r);
        }
        return;
      }
      case "control_request":
        void this.controlRequest(msg);
        return;
      case "control_cancel_request":
      case "keep_alive":
        return;
    }
    let result: Obj | undefined;
    try {
      result = this.mapper.map(msg);
    } catch (e) {
      this.ctx.logger.warn(`could not map a line: ${(e as Error).message}`, this.ctx.sessionId);
      this.ctx.emit({ type: "raw", source: "stdout", payload: json(msg) });
    }
    if (result) this.result(result);
  }

  private result(r: Obj): void {
    const t = this.turn;
    if (!t || t.result) {
      // Qwen Code without credentials answers the handshake with a failed result, then exits.
      if (!t && r.is_error === true) this.saidBeforeTurn = str(obj(r.error).message) ?? str(r.result) ?? this.saidBeforeTurn;
      this.ctx.emit({ type: "raw", source: "stdout", payload: json(r) });
      return;
    }
    for (const e of denialEvents(r, this.decidedByHost)) this.ctx.emit(e);
    const { end } = claudeResult(r, { failedText: this.flavor.failedText });
    if ("outcome" in end && end.outcome.usage) {
      let usage = end.outcome.usage;
      if (this.flavor.usageIsRunningTotal) {
        const total = usage;
        // A new process (after a cancel) may start counting again.
        const reset = this.lastTotal && (total.inputTokens ?? 0) < (this.lastTotal.inputTokens ?? 0);
        usage = reset ? total : diffUsage(total, this.lastTotal);
        this.lastTotal = total;
      } else if (this.flavor.costIsRunningTotal && usage.costUsd !== undefined) {
        const cost = usage.costUsd;
        const reset = this.lastTotal?.costUsd !== undefined && cost < this.lastTotal.costUsd;
        usage = { ...usage, costUsd: reset ? cost : diffUsage({ costUsd: cost }, this.lastTotal).costUsd };
        this.lastTotal = { costUsd: cost };
      }
      end.outcome.usage = usage;
      this.ctx.emit({ type: "usage", ...usage });
    }
    t.settle(end);
  }

  private outputLimit(): void {
    const t = this.turn;
    if (!t || t.result) return;
    t.endProcess = true;
    t.settle({ error: errors.outputLimit("prompt", this.ctx.maxOutputBytes) });
  }

  private async controlRequest(msg: Obj): Promise<void> {
    const id = str(msg.request_id);
    const req = obj(msg.request);
    if (req.subtype !== "can_use_tool") {
      this.ctx.emit({ type: "raw", source: "stdout", payload: json(msg) });
      this.write({ type: "control_response", response: { subtype: "error", request_id: id, error: `a4aa does not handle ${String(req.subtype)}` } });
      return;
    }
    const name = str(req.tool_name) ?? "tool";
    const input = obj(req.input);
    const toolCallId = str(req.tool_use_id) ?? id ?? `permission-${++this.counter}`;
    const known = this.mapper.tools.get(toolCallId);
    const texts = [str(input.description), str(input.command), str(input.file_path), str(req.decision_reason), str(req.blocked_path)].filter(
      (t): t is string => !!t,
    );
    const decision = await this.ctx.askPermission({
      toolCallId,
      title: toolTitle(name, input),
      kind: known?.kind ?? toolKind(name),
      contentTexts: texts.length ? texts : [JSON.stringify(input)],
      options: PERMISSION_OPTIONS,
      raw: json(msg),
    });
    let response: Obj;
    if (decision.outcome === "selected" && decision.optionId !== "deny") {
      this.decidedByHost.add(toolCallId);
      response = { behavior: "allow", updatedInput: input };
      if (decision.optionId === "allowAlways") response.updatedPermissions = arr(req.permission_suggestions);
    } else {
      this.decidedByHost.add(toolCallId);
      response = {
        behavior: "deny",
        message: decision.outcome === "cancelled" ? "The permission request was cancelled" : "The user denied this tool use",
      };
    }
    this.write({ type: "control_response", response: { subtype: "success", request_id: id, response } });
  }

  // ---- LaneSession -------------------------------------------------------------------

  checkTurn(input: TurnInput): void {
    checkSelectors(this.flavor.name, this.flavor.rules, { model: input.model, effort: input.effort }, "prompt");
  }

  async prompt(input: TurnInput): Promise<TurnOutcome> {
    if (!this.proc || !this.proc.running) {
      await this.stopProcess(0);
      await this.start();
    }
    let settle!: (r: TurnEnd) => void;
    const ended = new Promise<TurnEnd>((r) => (settle = r));
    const turn: Turn = {
      cancelled: false,
      bytes: 0,
      endProcess: false,
      ended,
      settle: (r) => {
        if (turn.result) return;
        turn.result = r;
        if (turn.timer) clearTimeout(turn.timer);
        settle(r);
      },
    };
    this.turn = turn;
    this.write({
      type: "user",
      message: { role: "user", content: userContent(input) },
      parent_tool_use_id: null,
      session_id: this.nativeSessionId,
    });
    this.existing = true;
    try {
      const r = await ended;
      // A cancelled turn (or one over the output limit) ends the process group: nothing
      // it started survives, and the next prompt resumes the session in a new process.
      if (turn.cancelled || turn.endProcess) await this.stopProcess(turn.cancelled ? 500 : 0);
      if ("error" in r) throw r.error;
      return r.outcome;
    } finally {
      if (this.turn === turn) this.turn = null;
    }
  }

  async cancel(): Promise<void> {
    const t = this.turn;
    if (!t || t.result || t.cancelled) return;
    t.cancelled = true;
    t.endProcess = true;
    this.write({ type: "control_request", request_id: `a4aa-${++this.counter}`, request: { subtype: "interrupt" } });
    // No result within the grace period: SIGTERM the group (SIGKILL after its own grace).
    t.timer = setTimeout(() => {
      const proc = this.proc;
      if (!t.result && proc) {
        this.ctx.logger.info(`no result ${INTERRUPT_GRACE_MS} ms after interrupt; ending the process group`, this.ctx.sessionId);
        void proc.stop({ stdinGraceMs: 0, termGraceMs: KILL_GRACE_MS });
      }
    }, INTERRUPT_GRACE_MS);
  }

  async close(): Promise<{ clean: boolean; detail?: string }> {
    const t = this.turn;
    if (t && !t.result) t.settle({ outcome: { stopReason: "cancelled" } });
    await this.stopProcess();
    return this.lastUnclean ? { clean: false, detail: this.lastUnclean } : { clean: true };
  }
}
