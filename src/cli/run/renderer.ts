// The one printer of agent sessions, shared by `a4aa run` and `a4aa demo`: turns a4aa.v1
// events, turn outcomes and errors into text a person reads as it comes.
import type { AgentEvent, Budget, OpenResult, PermissionRequest, PlanEntry, ToolCallStatus, ToolKind, TurnOutcome, Usage } from "../../../generated/ts/types.js";
import { currentSelectorValue } from "../../../clients/ts/index.js";
import { describeError } from "./hints.js";
import type { Screen } from "./screen.js";
import { SPINNER, count, fit, seconds, type Colors } from "./style.js";

interface Tool {
  title: string;
  kind: ToolKind;
  status: ToolCallStatus;
  detail?: string;
}

const TOOL_WORD: Record<ToolCallStatus, string> = { pending: "pending", inProgress: "running", completed: "done", failed: "failed" };
const PLAN_MARK: Record<PlanEntry["status"], string> = { pending: "[ ]", inProgress: "[~]", completed: "[x]" };
/** At most this many stderr lines of the agent are kept for an error report. */
const STDERR_KEPT = 12;

export class Renderer {
  private tools = new Map<string, Tool>();
  private plan: PlanEntry[] = [];
  private planShown = "";
  private usage: Usage = {};
  private streaming: "message" | "thought" | "user" | null = null;
  private turnStart = 0;
  private spinTimer: NodeJS.Timeout | undefined;
  private spin = 0;
  private prompt: string[] = [];
  private footer = "";
  private stderrTail: string[] = [];
  /** The agent's own session id, when it told it (for --resume). */
  nativeSessionId: string | null = null;
  currentMode: string | undefined;
  /** `a4aa run --budget`: the session's limits, shown with what is spent after each turn. */
  budget: Budget | undefined;
  private spent = { tokens: 0, cost: 0 };

  constructor(
    readonly screen: Screen,
    readonly c: Colors,
  ) {}

  /** The session header: which agent, lane, session, mode. */
  opened(open: OpenResult, label: string): void {
    this.nativeSessionId = open.nativeSessionId;
    this.currentMode = open.sessionState ? currentSelectorValue(open.sessionState, "mode") : undefined;
    const agent = open.agentInfo ? `${open.agentInfo.title ?? open.agentInfo.name}${open.agentInfo.version ? ` ${open.agentInfo.version}` : ""}` : label;
    const bits = [`${open.capabilities.lane} lane`, `session ${open.sessionId}`];
    if (this.currentMode) bits.push(`mode ${this.currentMode}`);
    this.screen.line(`${this.c.bold(agent)} ${this.c.dim(`· ${bits.join(" · ")}`)}`);
  }

  /** A line of the host's own (what the demo is doing, a command's answer). */
  note(text: string): void {
    this.endStream();
    this.screen.line(this.c.dim(text));
  }

  /** A heading line (the demo's steps). */
  step(text: string): void {
    this.endStream();
    this.screen.line(this.c.bold(text));
  }

  turnStarted(): void {
    this.endStream();
    this.tools.clear();
    this.plan = [];
    this.planShown = "";
    this.usage = {};
    this.stderrTail = [];
    this.turnStart = Date.now();
    if (this.screen.live) {
      this.spinTimer = setInterval(() => {
        this.spin++;
        this.redraw();
      }, 100);
      this.spinTimer.unref();
    }
    this.redraw();
  }

  event(e: AgentEvent): void {
    switch (e.type) {
      case "messageChunk":
        return this.streamText("message", e.text, (s) => s);
      case "thoughtChunk":
        return this.streamText("thought", e.text, (s) => this.c.dim(this.c.italic(s)));
      case "userMessageChunk":
        return this.streamText("user", e.text, (s) => this.c.cyan(s));
      case "toolCall": {
        const t: Tool = { title: e.title, kind: e.kind, status: e.status };
        this.tools.set(e.toolCallId, t);
        return this.toolChanged(e.toolCallId, t);
      }
      case "toolCallUpdate": {
        const t = this.tools.get(e.toolCallId) ?? { title: e.title ?? e.toolCallId, kind: "other" as ToolKind, status: "pending" as ToolCallStatus };
        if (e.title) t.title = e.title;
        if (e.status) t.status = e.status;
        const text = e.contentTexts?.filter((s) => s.trim()).at(-1);
        if (text) t.detail = text.trim();
        this.tools.set(e.toolCallId, t);
        return this.toolChanged(e.toolCallId, t);
      }
      case "plan":
        this.plan = e.entries;
        if (!this.screen.live) this.printPlan();
        return this.redraw();
      case "usage":
        this.usage = { ...this.usage, ...withoutType(e) };
        return;
      case "modeChanged":
        this.currentMode = e.modeId;
        return this.note(`mode is now ${e.modeId}`);
      case "sessionInfo":
        if (e.nativeSessionId) this.nativeSessionId = e.nativeSessionId;
        if (e.title) this.note(`title: ${e.title}`);
        return;
      case "permissionResolved":
        if (e.decidedBy === "policy") {
          const t = this.tools.get(e.toolCallId);
          // A policy's cancel is also a cancelled turn or a timeout: only a selection names the preset.
          this.note(e.outcome === "selected" ? `permission "${e.optionId}" by the --permission preset${t ? `: ${t.title}` : ""}` : `permission request withdrawn (the turn was cancelled, the request timed out, or the preset refused it)${t ? `: ${t.title}` : ""}`);
        }
        return;
      case "notice":
        // The agent retrying its model API (codex's "Reconnecting... 2/5"): the person sees why it is slow.
        this.endStream();
        this.screen.line(`${this.c.yellow("!")} ${e.retrying ? "retrying: " : ""}${fit(e.text, this.screen.columns() - 12)}`);
        return this.redraw();
      case "stderr":
        this.stderrTail.push(e.text);
        if (this.stderrTail.length > STDERR_KEPT) this.stderrTail.shift();
        return;
      default:
        return; // raw and newer event types: nothing a person needs to read here
    }
  }

  /** Shows the permission question in the status area (terminal) until answered. */
  askPermission(req: PermissionRequest, keys: string[]): void {
    this.endStream();
    const w = this.screen.columns() - 1;
    const lines = [`${this.c.yellow("?")} ${this.c.bold("Allow")} ${fit(req.title, w - 20)} ${this.c.dim(`(${req.kind})`)}`];
    for (const t of req.contentTexts.filter((s) => s.trim()).slice(0, 4)) lines.push(this.c.dim(`    ${fit(t.trim(), w - 4)}`));
    // Each choice stays whole on a row: a narrow terminal moves the next one down, never cuts a word.
    const choices = req.options.map((o, i) => ({ text: `${this.c.bold(`[${keys[i]}]`)} ${fit(o.name, w - 8)}`, width: [...`[${keys[i]}] ${fit(o.name, w - 8)}`].length }));
    choices.push({ text: this.c.dim("[Esc] cancel"), width: "[Esc] cancel".length });
    let row = "";
    let used = 0;
    for (const ch of choices) {
      if (used && used + 2 + ch.width > w) {
        lines.push(row);
        row = "";
        used = 0;
      }
      row += `  ${ch.text}`;
      used += 2 + ch.width;
    }
    lines.push(row);
    this.prompt = lines;
    this.redraw();
  }

  /** The permission answer, as a line that stays. */
  permissionAnswered(req: PermissionRequest, answer: string, by: string): void {
    this.prompt = [];
    this.screen.line(`${this.c.yellow("?")} ${req.title} ${this.c.dim(`(${req.kind})`)} → ${this.c.bold(answer)} ${this.c.dim(`(${by})`)}`);
    this.redraw();
  }

  /** What the person typed ahead while the turn runs (terminal only). */
  setFooter(text: string): void {
    this.footer = text;
    this.redraw();
  }

  /** What the session has spent of its --budget (tokens as the sidecar counts them: total, else in + out). */
  private budgetFigure(u: TurnOutcome["usage"]): string {
    this.spent.tokens += u?.totalTokens ?? (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0);
    this.spent.cost += u?.costUsd ?? 0;
    const b = this.budget!;
    const parts: string[] = [];
    if (b.maxTokens !== undefined) parts.push(`${count(this.spent.tokens)}/${count(b.maxTokens)} tokens`);
    if (b.maxCostUsd !== undefined) parts.push(`$${this.spent.cost.toFixed(4)}/$${b.maxCostUsd}`);
    if (b.maxTurnMs !== undefined) parts.push(`turn ≤ ${seconds(b.maxTurnMs)}`);
    return `budget ${parts.join(", ")}`;
  }

  /** The end of a turn: tool calls left open, the plan, and one line of figures. */
  turnEnded(outcome: TurnOutcome, note?: string): void {
    this.stopTurn();
    const u = { ...this.usage, ...outcome.usage };
    const figures: string[] = [];
    if (u.inputTokens !== undefined || u.outputTokens !== undefined) figures.push(`${count(u.inputTokens ?? 0)} in / ${count(u.outputTokens ?? 0)} out`);
    if (u.contextUsedTokens !== undefined) figures.push(`context ${count(u.contextUsedTokens)}${u.contextWindowTokens ? `/${count(u.contextWindowTokens)}` : ""}`);
    if (u.costUsd !== undefined) figures.push(`$${u.costUsd.toFixed(4)}`);
    figures.push(seconds(Date.now() - this.turnStart));
    if (this.budget) figures.push(this.budgetFigure(outcome.usage));
    const reason = outcome.stopReason === "endTurn" ? this.c.green("done") : outcome.stopReason === "cancelled" ? this.c.yellow("cancelled") : this.c.red(outcome.stopReason);
    this.screen.line(`${this.c.dim("──")} ${reason}${note ? ` ${this.c.dim(note)}` : ""} ${this.c.dim(`· ${figures.join(" · ")}`)}`);
    this.screen.flush();
  }

  /** A failed call in words, the fix when a4aa knows one, and the agent's last stderr lines. */
  failed(err: unknown, what: string, hint?: string): void {
    this.stopTurn();
    const d = describeError(err);
    if (hint) d.hint = hint;
    this.screen.line(`${this.c.red("✗")} ${what} failed: ${d.message}`);
    // Lines the error's own stderr tail carries are not shown twice.
    for (const l of this.stderrTail.slice(-5).filter((x) => !d.message.includes(x.trim()))) this.screen.line(this.c.dim(`  agent stderr: ${fit(l, this.screen.columns() - 18)}`));
    if (d.hint) this.screen.line(`  ${this.c.cyan("fix:")} ${d.hint}`);
    this.screen.flush();
  }

  private stopTurn(): void {
    this.endStream();
    if (this.spinTimer) clearInterval(this.spinTimer);
    this.spinTimer = undefined;
    for (const [id, t] of this.tools) this.commitTool(id, t);
    this.tools.clear();
    if (this.screen.live) this.printPlan();
    this.prompt = [];
    this.footer = "";
    this.turnStart ||= Date.now();
    this.screen.setStatus([]);
  }

  private streamText(kind: "message" | "thought" | "user", text: string, style: (s: string) => string): void {
    if (this.streaming !== kind) {
      this.endStream();
      this.streaming = kind;
      if (kind === "user") this.screen.stream("› ", (s) => this.c.cyan(s));
      if (kind === "thought") this.screen.stream("thinking: ", (s) => this.c.dim(s));
    }
    this.screen.stream(text, style);
    this.redraw();
  }

  /** Ends an open stream of text (a reply, a replayed history). */
  endStream(): void {
    if (this.streaming) this.screen.endStream();
    this.streaming = null;
  }

  private toolChanged(id: string, t: Tool): void {
    if (t.status === "completed" || t.status === "failed") {
      this.endStream();
      this.commitTool(id, t);
      this.tools.delete(id);
    }
    this.redraw();
  }

  private commitTool(_id: string, t: Tool): void {
    this.screen.line(this.toolLine(t));
  }

  private toolLine(t: Tool): string {
    const w = this.screen.columns() - 1;
    const icon = { pending: this.c.dim("○"), inProgress: this.c.cyan(SPINNER[this.spin % SPINNER.length]), completed: this.c.green("✓"), failed: this.c.red("✗") }[t.status] ?? "·";
    const word = TOOL_WORD[t.status] ?? t.status;
    const head = `${word} ${t.title} (${t.kind})`;
    const title = fit(head, w - 2);
    const room = w - 2 - [...title].length - 3;
    const detail = t.detail && room > 8 ? ` — ${fit(t.detail, room)}` : "";
    return `${icon} ${this.c.bold(title.slice(0, word.length))}${title.slice(word.length)}${this.c.dim(detail)}`;
  }

  private printPlan(): void {
    if (!this.plan.length) return;
    const text = this.plan.map((p) => `${PLAN_MARK[p.status] ?? "[ ]"} ${p.content}`).join("\n");
    if (text === this.planShown) return;
    this.planShown = text;
    this.endStream();
    this.screen.line(this.c.cyan("plan"));
    for (const l of this.planLines()) this.screen.line(l);
  }

  private planLines(): string[] {
    const w = this.screen.columns() - 1;
    return this.plan.map((p) => {
      const mark = PLAN_MARK[p.status] ?? "[ ]";
      const line = `  ${mark} ${fit(p.content, w - 6)}`;
      return p.status === "completed" ? this.c.dim(line) : p.status === "inProgress" ? this.c.bold(line) : line;
    });
  }

  private redraw(): void {
    if (!this.screen.live) return;
    const lines: string[] = [];
    if (this.turnStart && this.spinTimer) {
      if (this.plan.length) lines.push(this.c.cyan("plan"), ...this.planLines());
      for (const t of this.tools.values()) lines.push(this.toolLine(t));
      lines.push(...this.prompt);
      if (!this.prompt.length) {
        const what = this.streaming === "message" ? "writing" : this.tools.size ? "working" : "thinking";
        lines.push(this.c.dim(`${SPINNER[this.spin % SPINNER.length]} ${what}… ${seconds(Date.now() - this.turnStart)} · Ctrl-C cancels`));
      }
      if (this.footer) lines.push(`${this.c.cyan("›")} ${fit(this.footer, this.screen.columns() - 4)}`);
    }
    this.screen.setStatus(lines);
  }
}

function withoutType(e: Usage & { type?: string }): Usage {
  const { type: _t, ...rest } = e;
  return rest;
}
