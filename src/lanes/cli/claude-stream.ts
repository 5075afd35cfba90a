// The Claude-style message stream, spoken by Claude Code and Qwen Code in stream-json
// mode and by Amp's --stream-json: `system` (init), `stream_event` (raw API deltas, with
// --include-partial-messages), `assistant` (whole content blocks), `user` (tool results),
// and a final `result`. Text already streamed as deltas is not repeated from the blocks.
import type { AgentEvent, StopReason, ToolKind, Usage } from "../../../generated/ts/types.js";
import { errors } from "../../errors.js";
import { arr, isObj, json, num, obj, str, type Obj } from "./loose-json.js";
import { resultTexts, toolKind, toolLocations, toolTitle } from "./tool-calls.js";
import { anthropicUsage } from "./usage.js";
import type { TurnEnd } from "./turn-process.js";

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: "endTurn",
  stop_sequence: "endTurn",
  tool_use: "endTurn",
  pause_turn: "endTurn",
  max_tokens: "maxTokens",
  model_context_window_exceeded: "maxTokens",
  refusal: "refusal",
};

export interface ClaudeResultOptions {
  /** A success result whose text is really a failure (Qwen's `[API Error …`). */
  failedText?: (text: string) => boolean;
}

export class ClaudeStreamMapper {
  /**
   * Text / thinking that came as deltas since the last `assistant` message: that message
   * repeats it. (Claude Code repeats the stream's message id; Qwen Code gives each block's
   * message a new id, so ids cannot tell.)
   */
  private streamedText = false;
  private streamedThinking = false;
  /** Tool calls announced, by id, with their kind. */
  readonly tools = new Map<string, { name: string; kind: ToolKind }>();

  constructor(
    private readonly emit: (e: AgentEvent) => void,
    private readonly onSessionId: (id: string) => void,
  ) {}

  /** Maps one message; returns it when it is the terminal `result`. */
  map(msg: Obj): Obj | undefined {
    const type = str(msg.type);
    const sid = str(msg.session_id);
    switch (type) {
      case "result":
        if (sid) this.onSessionId(sid);
        return msg;
      case "system":
        if (msg.subtype === "init" && sid) this.onSessionId(sid);
        this.emit({ type: "raw", source: "stdout", payload: json(msg) });
        return undefined;
      case "stream_event":
        this.streamEvent(obj(msg.event), msg);
        return undefined;
      case "assistant":
        this.assistant(msg);
        return undefined;
      case "user":
        this.user(msg);
        return undefined;
      default:
        this.emit({ type: "raw", source: "stdout", payload: json(msg) });
        return undefined;
    }
  }

  private streamEvent(ev: Obj, msg: Obj): void {
    if (msg.parent_tool_use_id) return; // a sub-agent's deltas: its blocks follow as messages
    switch (ev.type) {
      case "content_block_delta": {
        const d = obj(ev.delta);
        if (d.type === "text_delta" && typeof d.text === "string") {
          this.streamedText = true;
          if (d.text) this.emit({ type: "messageChunk", text: d.text });
        } else if (d.type === "thinking_delta" && typeof d.thinking === "string") {
          this.streamedThinking = true;
          if (d.thinking) this.emit({ type: "thoughtChunk", text: d.thinking });
        }
        // input_json_delta, signature_delta: the whole block follows in an `assistant` message.
        return;
      }
      default:
        // content_block_start/stop, message_delta, message_stop: repeated by the messages.
        return;
    }
  }

  private assistant(msg: Obj): void {
    const m = obj(msg.message);
    const sub = !!msg.parent_tool_use_id;
    const skipText = !sub && this.streamedText;
    const skipThinking = !sub && this.streamedThinking;
    if (!sub) this.streamedText = this.streamedThinking = false;
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : arr(m.content);
    for (const b of content) {
      if (!isObj(b)) continue;
      if (b.type === "text" && typeof b.text === "string") {
        if (sub) this.emit({ type: "raw", source: "stdout", payload: json(msg) });
        else if (!skipText && b.text) this.emit({ type: "messageChunk", text: b.text });
      } else if (b.type === "thinking" && typeof b.thinking === "string") {
        if (!skipThinking && !sub && b.thinking) this.emit({ type: "thoughtChunk", text: b.thinking });
      } else if (b.type === "tool_use" || b.type === "server_tool_use") {
        const toolId = str(b.id) ?? `tool-${this.tools.size + 1}`;
        const name = str(b.name) ?? "tool";
        const kind = toolKind(name);
        this.tools.set(toolId, { name, kind });
        const locations = toolLocations(b.input);
        this.emit({
          type: "toolCall",
          toolCallId: toolId,
          title: toolTitle(name, b.input),
          kind,
          status: "pending",
          ...(locations ? { locations } : {}),
          rawInput: json(b.input),
        });
      } else if (b.type !== "redacted_thinking") {
        this.emit({ type: "raw", source: "stdout", payload: json(b) });
      }
    }
  }

  private user(msg: Obj): void {
    const m = obj(msg.message);
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : arr(m.content);
    for (const b of content) {
      if (!isObj(b)) continue;
      if (b.type === "tool_result") {
        const id = str(b.tool_use_id) ?? "";
        const texts = resultTexts(b.content);
        this.emit({
          type: "toolCallUpdate",
          toolCallId: id,
          status: b.is_error === true ? "failed" : "completed",
          ...(texts.length ? { contentTexts: texts } : {}),
          rawOutput: json(msg.tool_use_result ?? b.content),
        });
      } else if (b.type === "text" && typeof b.text === "string" && INTERRUPTED.test(b.text)) {
        // Claude Code's own record of a cancel, sent as a user message: nobody typed it.
        this.emit({ type: "raw", source: "stdout", payload: json(msg) });
      } else if (b.type === "text" && typeof b.text === "string") {
        if (!msg.parent_tool_use_id && b.text) this.emit({ type: "userMessageChunk", text: b.text });
      } else {
        this.emit({ type: "raw", source: "stdout", payload: json(b) });
      }
    }
  }
}

/** What Claude Code 2.1.197 writes as a `user` message after an interrupt (recorded). */
const INTERRUPTED = /^\[Request interrupted by user( for tool use)?\]$/;

/** The turn's end and usage from a `result` message. */
export function claudeResult(r: Obj, opts: ClaudeResultOptions = {}): { end: TurnEnd; usage?: Usage } {
  const usage = anthropicUsage(r.usage, num(r.total_cost_usd) ?? num(r.cost_usd));
  const subtype = str(r.subtype) ?? "success";
  const text = str(r.result);
  if (subtype === "success" && r.is_error !== true) {
    if (text !== undefined && opts.failedText?.(text)) return { end: { error: errors.agentFailed("prompt", text) }, usage };
    const stopReason = STOP_REASONS[str(r.stop_reason) ?? "end_turn"] ?? "endTurn";
    return { end: { outcome: { stopReason, ...(usage ? { usage } : {}) } }, usage };
  }
  if (subtype === "error_max_turns") return { end: { outcome: { stopReason: "maxTurnRequests", ...(usage ? { usage } : {}) } }, usage };
  const detail =
    text ||
    arr(r.errors)
      .map((e) => (typeof e === "string" ? e : (str(obj(e).message) ?? JSON.stringify(e))))
      .join("; ") ||
    str(obj(r.error).message) ||
    str(r.error) ||
    `the agent ended the turn with ${subtype}`;
  return { end: { error: errors.agentFailed("prompt", detail) }, usage };
}

/** `permission_denials` the CLI decided by itself, as events. */
export function denialEvents(r: Obj, decidedByHost: ReadonlySet<string>): AgentEvent[] {
  const out: AgentEvent[] = [];
  for (const d of arr(r.permission_denials)) {
    const id = str(obj(d).tool_use_id);
    if (!id || decidedByHost.has(id)) continue;
    out.push({ type: "permissionResolved", toolCallId: id, outcome: "cancelled", decidedBy: "policy" });
  }
  return out;
}
