// `cursorAgent`: Cursor's `cursor-agent -p --output-format stream-json --trust … <prompt>`,
// one process per turn. Events: system (init), user (the prompt echoed), assistant (a
// whole message between tool calls; with --stream-partial-output also deltas, a copy of
// each delta carrying model_call_id, and a recap of the whole text: de-duplicated here),
// thinking (delta/completed), tool_call (started/completed), result.
import type { AgentEvent, Usage } from "../../../../generated/ts/types.js";
import { errors } from "../../../errors.js";
import { arr, isObj, json, num, obj, str, type Obj } from "../loose-json.js";
import type { SelectorRules } from "../selector-rules.js";
import { resultTexts, toolKind, toolLocations, toolTitle } from "../tool-calls.js";
import { cleanUsage } from "../usage.js";
import type { LineParser, TurnSink } from "../turn-process.js";
import type { PerTurnDriver, TurnBuild } from "../turn-session.js";

export const cursorRules: SelectorRules = {
  model: true,
  mode: ["plan", "ask"],
  effort: false,
  // Without --force, edits and commands are only proposed.
  permission: ["readOnly", "bypass"],
  turnModel: true,
  turnEffort: false,
};

function cursorCommand(t: TurnBuild): { args: string[]; tail: string[] } {
  const o = t.ctx.options;
  const args = ["-p", "--output-format", "stream-json", "--trust"];
  if (t.continuing && t.nativeSessionId) args.push("--resume", t.nativeSessionId);
  const model = t.input.model ?? o.model;
  if (model) args.push("--model", model);
  if (o.mode) args.push("--mode", o.mode);
  if (o.permission === "bypass") args.push("--force");
  return { args, tail: [t.input.text] };
}

/** `{shellToolCall: {args, result}}` or `{tool: {case: "shellToolCall", value: {…}}}`. */
function toolOf(toolCall: unknown): { name: string; body: Obj } {
  const tc = obj(toolCall);
  const t = obj(tc.tool);
  if (str(t.case)) return { name: str(t.case)!, body: obj(t.value) };
  const key = Object.keys(tc).find((k) => k.endsWith("ToolCall")) ?? Object.keys(tc)[0] ?? "tool";
  return { name: key, body: obj(tc[key]) };
}

function displayName(name: string): string {
  return name.replace(/ToolCall$/, "");
}

function cursorUsage(u: unknown): Usage | undefined {
  const x = obj(u);
  const input = num(x.inputTokens) ?? num(x.input_tokens);
  const output = num(x.outputTokens) ?? num(x.output_tokens);
  const cacheRead = num(x.cacheReadTokens) ?? num(x.cache_read_input_tokens);
  const cacheWrite = num(x.cacheWriteTokens) ?? num(x.cache_creation_input_tokens);
  const inputAll = input === undefined ? undefined : input + (cacheRead ?? 0) + (cacheWrite ?? 0);
  return cleanUsage({
    inputTokens: inputAll,
    outputTokens: output,
    cachedInputTokens: cacheRead,
    totalTokens: inputAll !== undefined || output !== undefined ? (inputAll ?? 0) + (output ?? 0) : undefined,
  });
}

function textOf(msg: Obj): string {
  const content = obj(msg.message).content;
  if (typeof content === "string") return content;
  return arr(content)
    .map((b) => (isObj(b) && b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .join("");
}

function cursorParser(): LineParser {
  /** Text emitted since the last tool call (what a recap repeats). */
  let segment = "";
  let lastDelta = "";
  let partial = false;
  const say = (sink: TurnSink, text: string) => {
    if (!text) return;
    segment += text;
    sink.emit({ type: "messageChunk", text });
  };
  return {
    kind: "lines",
    line(m, sink) {
      const msg = obj(m);
      switch (msg.type) {
        case "system": {
          const sid = str(msg.session_id);
          if (sid) sink.sessionId(sid);
          sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
          return;
        }
        case "user":
          return;
        case "assistant": {
          const text = textOf(msg);
          if (msg.timestamp_ms !== undefined) {
            partial = true;
            // The same delta again, now with its model call id.
            if (msg.model_call_id !== undefined && text === lastDelta) return;
            lastDelta = text;
            return say(sink, text);
          }
          if (partial) {
            // The recap of a streamed message: only what the deltas did not already say.
            if (text.startsWith(segment)) return say(sink, text.slice(segment.length));
            if (segment.includes(text)) return;
          }
          return say(sink, text);
        }
        case "thinking":
          if (msg.subtype === "delta" && str(msg.text)) sink.emit({ type: "thoughtChunk", text: str(msg.text)! });
          return;
        case "tool_call": {
          segment = "";
          lastDelta = "";
          const { name, body } = toolOf(msg.tool_call);
          const id = str(msg.call_id) ?? name;
          const args = obj(body.args);
          if (msg.subtype === "started") {
            const locations = toolLocations(args);
            sink.emit({
              type: "toolCall",
              toolCallId: id,
              title: toolTitle(displayName(name), args),
              kind: toolKind(name),
              status: "inProgress",
              ...(locations ? { locations } : {}),
              rawInput: json(body),
            });
          } else {
            const result = obj(body.result);
            const ok = isObj(result.success) || (!result.error && !result.rejected && !result.failure && msg.subtype === "completed");
            const detail = result.success ?? result.error ?? result.rejected ?? result.failure;
            const texts = resultTexts(detail);
            const ev: AgentEvent = {
              type: "toolCallUpdate",
              toolCallId: id,
              status: ok ? "completed" : "failed",
              ...(texts.length ? { contentTexts: texts } : {}),
              rawOutput: json(body),
            };
            sink.emit(ev);
          }
          return;
        }
        case "result": {
          const usage = cursorUsage(msg.usage);
          if (usage) sink.emit({ type: "usage", ...usage });
          if (msg.is_error === true || (str(msg.subtype) ?? "success") !== "success") {
            sink.end({ error: errors.agentFailed("prompt", str(msg.result) ?? str(msg.error) ?? `the turn ended with ${String(msg.subtype)}`) });
          } else sink.end({ outcome: { stopReason: "endTurn", ...(usage ? { usage } : {}) } });
          return;
        }
        default:
          sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
      }
    },
  };
}

export const cursorAgentDriver: PerTurnDriver = {
  name: "cursorAgent",
  rules: cursorRules,
  resume: true,
  command: cursorCommand,
  parser: cursorParser,
};
