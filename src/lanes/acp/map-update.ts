// ACP `session/update` → a4aa AgentEvent. Everything the mapping does not know becomes a
// `raw` event: nothing the agent says is silently lost.
import type * as A from "../../../generated/acp/types.js";
import type {
  AgentEvent,
  PlanEntry,
  StopReason,
  ToolCallLocation,
  ToolCallStatus,
  ToolKind,
  Usage,
} from "../../../generated/ts/types.js";

const KINDS: ReadonlySet<string> = new Set(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]);

/** ACP tool kinds → a4aa; anything else (switch_mode, unknown, missing) is `other`. */
export function mapKind(kind: unknown): ToolKind {
  return typeof kind === "string" && KINDS.has(kind) ? (kind as ToolKind) : "other";
}

export function mapStatus(status: unknown): ToolCallStatus | undefined {
  switch (status) {
    case "pending":
      return "pending";
    case "in_progress":
      return "inProgress";
    case "completed":
      return "completed";
    case "failed":
      return "failed";
    default:
      return undefined;
  }
}

const STOP: Record<string, StopReason> = {
  end_turn: "endTurn",
  max_tokens: "maxTokens",
  max_turn_requests: "maxTurnRequests",
  refusal: "refusal",
  cancelled: "cancelled",
};

export function mapStopReason(r: unknown): StopReason | undefined {
  return typeof r === "string" ? STOP[r] : undefined;
}

function lineCount(s: string | null | undefined): number {
  if (!s) return 0;
  let n = 1;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return s.endsWith("\n") ? n - 1 : n;
}

/** Text content and diff summaries of a tool call, for a person to read. */
export function contentTexts(content: unknown): string[] | undefined {
  if (!Array.isArray(content)) return undefined;
  const out: string[] = [];
  for (const c of content as A.ToolCallContent[]) {
    if (!c || typeof c !== "object") continue;
    if (c.type === "content") {
      const b = (c as { content?: A.ContentBlock }).content;
      if (b && b.type === "text" && typeof b.text === "string") out.push(b.text);
      else if (b && b.type === "resource_link") out.push(`${(b as { uri?: string }).uri ?? ""}`);
    } else if (c.type === "diff") {
      const d = c as unknown as { path: string; oldText?: string | null; newText: string };
      out.push(
        d.oldText == null
          ? `create ${d.path} (+${lineCount(d.newText)} lines)`
          : `edit ${d.path} (-${lineCount(d.oldText)} +${lineCount(d.newText)} lines)`,
      );
    } else if (c.type === "terminal") {
      out.push(`terminal ${(c as { terminalId?: string }).terminalId ?? ""}`);
    }
  }
  return out;
}

function locations(v: unknown): ToolCallLocation[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: ToolCallLocation[] = [];
  for (const l of v as { path?: unknown; line?: unknown }[]) {
    if (!l || typeof l.path !== "string") continue;
    out.push(typeof l.line === "number" && l.line >= 0 ? { path: l.path, line: Math.floor(l.line) } : { path: l.path });
  }
  return out;
}

/** What the lane remembers of each tool call, to fill gaps in later messages. */
export interface ToolCallMemory {
  title: string;
  kind: ToolKind;
}

function planEntries(v: unknown): PlanEntry[] {
  if (!Array.isArray(v)) return [];
  const out: PlanEntry[] = [];
  for (const e of v as A.PlanEntry[]) {
    if (!e || typeof e.content !== "string") continue;
    const status = e.status === "in_progress" ? "inProgress" : e.status === "completed" ? "completed" : "pending";
    const entry: PlanEntry = { content: e.content, status };
    if (e.priority === "high" || e.priority === "medium" || e.priority === "low") entry.priority = e.priority;
    out.push(entry);
  }
  return out;
}

/**
 * Maps one update. `params` is the whole notification (kept as the `raw` payload);
 * `toolCalls` is the session's memory of tool calls, updated here.
 */
export function mapUpdate(params: A.SessionNotification, toolCalls: Map<string, ToolCallMemory>): AgentEvent {
  const u = params.update as A.SessionUpdate & Record<string, unknown>;
  switch (u.sessionUpdate) {
    case "agent_message_chunk":
    case "agent_thought_chunk":
    case "user_message_chunk": {
      const c = (u as { content?: A.ContentBlock }).content;
      if (c && c.type === "text" && typeof c.text === "string") {
        const type = u.sessionUpdate === "agent_message_chunk" ? "messageChunk" : u.sessionUpdate === "agent_thought_chunk" ? "thoughtChunk" : "userMessageChunk";
        return { type, text: c.text };
      }
      break;
    }
    case "tool_call": {
      const t = u as unknown as A.ToolCall;
      if (typeof t.toolCallId !== "string") break;
      const kind = mapKind(t.kind);
      const title = typeof t.title === "string" ? t.title : "";
      toolCalls.set(t.toolCallId, { title, kind });
      const ev: AgentEvent = { type: "toolCall", toolCallId: t.toolCallId, title, kind, status: mapStatus(t.status) ?? "pending" };
      const locs = locations(t.locations);
      if (locs && locs.length) ev.locations = locs;
      if (t.rawInput !== undefined) ev.rawInput = t.rawInput;
      return ev;
    }
    case "tool_call_update": {
      const t = u as unknown as A.ToolCallUpdate;
      if (typeof t.toolCallId !== "string") break;
      const ev: AgentEvent = { type: "toolCallUpdate", toolCallId: t.toolCallId };
      const status = mapStatus(t.status);
      if (status) ev.status = status;
      if (typeof t.title === "string") ev.title = t.title;
      const texts = contentTexts(t.content);
      if (texts && texts.length) ev.contentTexts = texts;
      if (t.rawOutput !== undefined && t.rawOutput !== null) ev.rawOutput = t.rawOutput;
      const mem = toolCalls.get(t.toolCallId);
      if (mem) {
        if (typeof t.title === "string") mem.title = t.title;
        if (t.kind) mem.kind = mapKind(t.kind);
      } else {
        toolCalls.set(t.toolCallId, { title: typeof t.title === "string" ? t.title : "", kind: mapKind(t.kind) });
      }
      return ev;
    }
    case "plan":
      return { type: "plan", entries: planEntries((u as { entries?: unknown }).entries) };
    case "current_mode_update": {
      const id = (u as { currentModeId?: unknown }).currentModeId;
      if (typeof id === "string") return { type: "modeChanged", modeId: id };
      break;
    }
    case "usage_update": {
      const x = u as unknown as { used?: unknown; size?: unknown; cost?: { amount?: unknown; currency?: unknown } | null };
      const ev: AgentEvent & Usage = { type: "usage" };
      if (typeof x.used === "number") ev.contextUsedTokens = x.used;
      if (typeof x.size === "number") ev.contextWindowTokens = x.size;
      if (x.cost && x.cost.currency === "USD" && typeof x.cost.amount === "number") ev.costUsd = x.cost.amount;
      return ev;
    }
    case "session_info_update": {
      const ev: AgentEvent = { type: "sessionInfo" };
      const title = (u as { title?: unknown }).title;
      if (typeof title === "string") ev.title = title;
      return ev;
    }
  }
  return { type: "raw", source: "acp", payload: params };
}

/** ACP's (unstable) PromptResponse.usage → a4aa Usage. */
export function mapPromptUsage(u: unknown): Usage | undefined {
  if (!u || typeof u !== "object") return undefined;
  const x = u as Record<string, unknown>;
  const out: Usage = {};
  const num = (v: unknown) => (typeof v === "number" && v >= 0 ? Math.floor(v) : undefined);
  const set = (k: keyof Usage, v: unknown) => {
    const n = num(v);
    if (n !== undefined) out[k] = n;
  };
  set("inputTokens", x.inputTokens);
  set("outputTokens", x.outputTokens);
  set("totalTokens", x.totalTokens);
  set("reasoningTokens", x.thoughtTokens);
  set("cachedInputTokens", x.cachedReadTokens);
  return Object.keys(out).length ? out : undefined;
}

/**
 * Gemini CLI's form (measured, gemini 0.61 `--acp`): no `usage`, but the PromptResponse's
 * `_meta.quota.token_count {input_tokens, output_tokens}`, the turn's own sums over its model
 * calls. Only those two figures: nothing else is derived.
 */
export function mapMetaQuotaUsage(meta: unknown): Usage | undefined {
  const tc = (meta as { quota?: { token_count?: unknown } } | null | undefined)?.quota?.token_count;
  if (!tc || typeof tc !== "object") return undefined;
  const x = tc as Record<string, unknown>;
  return mapPromptUsage({ inputTokens: x.input_tokens, outputTokens: x.output_tokens });
}
