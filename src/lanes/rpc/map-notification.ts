// Codex app-server notifications → a4aa events. Pure functions plus the little memory a
// mapping needs (tool items seen, deltas seen, the thread's token totals).
import type * as C from "../../../generated/codex/types.js";
import type { AgentEvent, AgentStatus, PlanEntry, RateLimitWindow, ToolCallStatus, ToolKind, Usage } from "../../../generated/ts/types.js";

type Item = C.ThreadItem & { type: string; id: string };

/** What the lane remembers of the tool items it announced (titles and diffs for approvals). */
export interface ToolItemMemory {
  title: string;
  kind: ToolKind;
  /** The file change's diffs, `path` then the diff, for a permission request's content. */
  contentTexts: string[];
}

const ITEM_STATUS: Record<string, ToolCallStatus> = {
  inProgress: "inProgress",
  completed: "completed",
  failed: "failed",
  declined: "failed",
};

const status = (s: unknown): ToolCallStatus => ITEM_STATUS[String(s)] ?? "inProgress";

/** The items that become tool calls, and their a4aa kinds (lanes.md §2). */
const TOOL_KINDS: Record<string, ToolKind> = {
  commandExecution: "execute",
  fileChange: "edit",
  mcpToolCall: "other",
  webSearch: "fetch",
};

export function isToolItem(item: { type?: unknown }): boolean {
  return typeof item.type === "string" && item.type in TOOL_KINDS;
}

function fileChangeTexts(changes: C.FileUpdateChange[] | undefined): string[] {
  return (changes ?? []).map((c) => {
    const move = c.kind?.type === "update" && (c.kind as C.UpdatePatchChangeKind).move_path ? ` → ${(c.kind as C.UpdatePatchChangeKind).move_path}` : "";
    return `${c.kind?.type ?? "update"} ${c.path}${move}\n${c.diff ?? ""}`;
  });
}

function webSearchTitle(item: C.WebSearchThreadItem): string {
  const a = item.action;
  if (a?.type === "openPage" && (a as C.OpenPageWebSearchAction).url) return `Open ${(a as C.OpenPageWebSearchAction).url}`;
  if (a?.type === "findInPage") return `Find ${JSON.stringify((a as C.FindInPageWebSearchAction).pattern ?? "")} in ${(a as C.FindInPageWebSearchAction).url ?? "page"}`;
  return item.query ? `Web search: ${item.query}` : "Web search";
}

function mcpTexts(item: C.McpToolCallThreadItem): string[] | undefined {
  if (item.error?.message) return [item.error.message];
  const content = item.result?.content;
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .map((c) => (c && typeof c === "object" && (c as { type?: unknown }).type === "text" ? String((c as { text?: unknown }).text ?? "") : null))
    .filter((t): t is string => t !== null);
  return texts.length ? texts : undefined;
}

/** The toolCall event of an item Codex started (command, file change, MCP, web search). */
export function toolCallOf(item: Item, memory: Map<string, ToolItemMemory>): AgentEvent {
  const kind = TOOL_KINDS[item.type] ?? "other";
  let title: string = item.type;
  let rawInput: unknown;
  let locations: { path: string }[] | undefined;
  let contentTexts: string[] = [];
  switch (item.type) {
    case "commandExecution": {
      const c = item as unknown as C.CommandExecutionThreadItem;
      title = c.command;
      rawInput = { command: c.command, cwd: c.cwd, commandActions: c.commandActions ?? [] };
      contentTexts = [c.command];
      break;
    }
    case "fileChange": {
      const f = item as unknown as C.FileChangeThreadItem;
      const paths = (f.changes ?? []).map((c) => c.path);
      title = paths.length ? `Edit ${paths.join(", ")}` : "Edit files";
      locations = paths.map((path) => ({ path }));
      rawInput = { changes: f.changes ?? [] };
      contentTexts = fileChangeTexts(f.changes);
      break;
    }
    case "mcpToolCall": {
      const m = item as unknown as C.McpToolCallThreadItem;
      title = `${m.server}.${m.tool}`;
      rawInput = m.arguments ?? null;
      break;
    }
    case "webSearch": {
      const w = item as unknown as C.WebSearchThreadItem;
      title = webSearchTitle(w);
      rawInput = { query: w.query, action: w.action ?? null };
      break;
    }
  }
  memory.set(item.id, { title, kind, contentTexts });
  const ev: AgentEvent = { type: "toolCall", toolCallId: item.id, title, kind, status: status((item as { status?: unknown }).status) };
  if (locations?.length) ev.locations = locations;
  if (rawInput !== undefined) ev.rawInput = rawInput as never;
  return ev;
}

/** The toolCallUpdate event of a tool item Codex completed. */
export function toolCallUpdateOf(item: Item, memory: Map<string, ToolItemMemory>): AgentEvent {
  const ev: AgentEvent = { type: "toolCallUpdate", toolCallId: item.id, status: status((item as { status?: unknown }).status) };
  let texts: string[] | undefined;
  let rawOutput: unknown;
  switch (item.type) {
    case "commandExecution": {
      const c = item as unknown as C.CommandExecutionThreadItem;
      if (typeof c.aggregatedOutput === "string" && c.aggregatedOutput) texts = [c.aggregatedOutput];
      rawOutput = { status: c.status, exitCode: c.exitCode ?? null, aggregatedOutput: c.aggregatedOutput ?? null, durationMs: c.durationMs ?? null };
      break;
    }
    case "fileChange": {
      const f = item as unknown as C.FileChangeThreadItem;
      texts = fileChangeTexts(f.changes);
      rawOutput = { status: f.status, changes: f.changes ?? [] };
      break;
    }
    case "mcpToolCall": {
      const m = item as unknown as C.McpToolCallThreadItem;
      texts = mcpTexts(m);
      rawOutput = { status: m.status, result: m.result ?? null, error: m.error ?? null };
      break;
    }
    case "webSearch": {
      const w = item as unknown as C.WebSearchThreadItem;
      ev.status = "completed";
      rawOutput = { query: w.query, action: w.action ?? null, results: w.results ?? null };
      break;
    }
  }
  if (texts?.length) ev.contentTexts = texts;
  if (rawOutput !== undefined) ev.rawOutput = rawOutput as never;
  memory.delete(item.id);
  return ev;
}

export function planOf(n: C.TurnPlanUpdatedNotification): AgentEvent {
  const entries: PlanEntry[] = (n.plan ?? []).map((s) => ({
    content: String(s.step ?? ""),
    status: s.status === "completed" || s.status === "inProgress" ? s.status : "pending",
  }));
  return { type: "plan", entries };
}

function minus(a: C.TokenUsageBreakdown, b: C.TokenUsageBreakdown | null): C.TokenUsageBreakdown {
  if (!b) return a;
  const d = (x: number | undefined, y: number | undefined) => Math.max(0, (x ?? 0) - (y ?? 0));
  return {
    totalTokens: d(a.totalTokens, b.totalTokens),
    inputTokens: d(a.inputTokens, b.inputTokens),
    cachedInputTokens: d(a.cachedInputTokens, b.cachedInputTokens),
    outputTokens: d(a.outputTokens, b.outputTokens),
    reasoningOutputTokens: d(a.reasoningOutputTokens, b.reasoningOutputTokens),
  };
}

/**
 * Token usage: Codex reports the thread's running totals (and the last model call's own
 * numbers) after every model call; a4aa reports the turn's own figures (lanes.md general
 * rules). The turn's baseline is the last total seen before it, or — for the first turn of
 * a resumed thread — the first report's total minus its last call.
 */
export class TurnUsage {
  private threadTotal: C.TokenUsageBreakdown | null = null;
  private base: C.TokenUsageBreakdown | null = null;
  private baseKnown = false;
  /** The turn's own usage so far, with the context figures of the last call. */
  current: Usage | undefined;

  startTurn(): void {
    this.base = this.threadTotal;
    this.baseKnown = this.threadTotal !== null;
    this.current = undefined;
  }

  /** Maps a `thread/tokenUsage/updated`; returns the event to emit. */
  update(u: C.ThreadTokenUsage): AgentEvent {
    if (!this.baseKnown) {
      this.base = minus(u.total, u.last);
      this.baseKnown = true;
    }
    this.threadTotal = u.total;
    const own = minus(u.total, this.base);
    const usage: Usage = {
      inputTokens: own.inputTokens,
      outputTokens: own.outputTokens,
      cachedInputTokens: own.cachedInputTokens,
      reasoningTokens: own.reasoningOutputTokens,
      totalTokens: own.totalTokens,
      contextUsedTokens: u.last.totalTokens,
    };
    if (typeof u.modelContextWindow === "number") usage.contextWindowTokens = u.modelContextWindow;
    this.current = usage;
    return { type: "usage", ...usage };
  }
}

/** `thread/status/changed` → a status event (the mapping is in StatusEvent's schema description). */
export function statusOf(n: C.ThreadStatusChangedNotification): AgentEvent {
  const st = n.status as { type?: unknown; activeFlags?: unknown };
  const flags = Array.isArray(st.activeFlags) ? st.activeFlags : [];
  let status: AgentStatus;
  switch (st.type) {
    case "active":
      status = flags.includes("waitingOnApproval") ? "waitingForApproval" : flags.includes("waitingOnUserInput") ? "waitingForInput" : "active";
      break;
    case "systemError":
      status = "error";
      break;
    case "idle":
    case "notLoaded":
      status = "idle";
      break;
    default:
      // A state this codex added: the nearest we know, per AgentStatus's rule for hosts.
      status = "active";
  }
  return { type: "status", status };
}

function rateWindow(w: C.RateLimitWindow | null | undefined): RateLimitWindow | undefined {
  if (!w || typeof w.usedPercent !== "number") return undefined;
  const out: RateLimitWindow = { usedPercent: w.usedPercent };
  if (typeof w.windowDurationMins === "number") out.windowMinutes = w.windowDurationMins;
  if (typeof w.resetsAt === "number") out.resetsAt = w.resetsAt;
  return out;
}

/** `account/rateLimits/updated` → a rateLimits event with the fields codex filled in. */
export function rateLimitsOf(n: C.AccountRateLimitsUpdatedNotification): AgentEvent {
  const r = n.rateLimits ?? {};
  const ev: AgentEvent = { type: "rateLimits" };
  if (typeof r.limitId === "string") ev.limitId = r.limitId;
  if (typeof r.limitName === "string") ev.limitName = r.limitName;
  const primary = rateWindow(r.primary);
  if (primary) ev.primary = primary;
  const secondary = rateWindow(r.secondary);
  if (secondary) ev.secondary = secondary;
  if (typeof r.rateLimitReachedType === "string") ev.reached = r.rateLimitReachedType;
  return ev;
}
