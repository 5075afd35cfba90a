// `codex`: `codex exec --json`, one process per turn, stdin closed. Events: thread.started,
// turn.started, item.started/updated/completed, turn.completed (usage: the thread's running
// total, so each turn reports the difference) or turn.failed / error.
import { codexMcpArgs } from "../../mcp-servers.js";
import type { AgentEvent, ToolKind, Usage } from "../../../../generated/ts/types.js";
import { errors } from "../../../errors.js";
import { arr, json, num, obj, str, type Obj } from "../loose-json.js";
import type { SelectorRules } from "../selector-rules.js";
import { cleanUsage, diffUsage } from "../usage.js";
import type { LineParser } from "../turn-process.js";
import type { DriverMemo, PerTurnDriver, TurnBuild } from "../turn-session.js";

export const codexRules: SelectorRules = {
  model: true,
  mode: false,
  effort: ["minimal", "low", "medium", "high", "xhigh"],
  // exec never asks: presets map to sandbox modes.
  permission: ["readOnly", "acceptEdits", "bypass"],
  turnModel: true,
  turnEffort: true,
};

const SANDBOX = { readOnly: "read-only", acceptEdits: "workspace-write", bypass: "danger-full-access" } as const;

function codexCommand(t: TurnBuild): { args: string[]; tail: string[] } {
  const o = t.ctx.options;
  const resume = t.continuing && t.nativeSessionId !== null;
  const args = ["exec"];
  if (resume) args.push("resume");
  args.push("--json", "--skip-git-repo-check");
  const model = t.input.model ?? o.model;
  if (model) args.push("-m", model);
  const effort = t.input.effort ?? o.effort;
  if (effort) args.push("-c", `model_reasoning_effort="${effort}"`);
  const perm = o.permission === "ask" ? "readOnly" : o.permission;
  // `exec resume` has no -s: the sandbox goes through a config override there.
  args.push("-c", `sandbox_mode="${SANDBOX[perm]}"`);
  // The prompt's images, written to the turn's private folder (`exec` and `exec resume` take -i).
  for (const image of t.images) args.push("-i", image);
  const tail = resume ? ["--", t.nativeSessionId!, t.input.text] : ["--", t.input.text];
  return { args, tail };
}

function itemKind(type: string): ToolKind | null {
  switch (type) {
    case "command_execution":
      return "execute";
    case "file_change":
      return "edit";
    case "web_search":
      return "fetch";
    case "mcp_tool_call":
      return "other";
    default:
      return null;
  }
}

function itemTitle(item: Obj): string {
  switch (item.type) {
    case "command_execution":
      return `Run: ${str(item.command) ?? ""}`.trim();
    case "file_change":
      return `Edit: ${arr(item.changes)
        .map((c) => `${str(obj(c).kind) ?? "update"} ${str(obj(c).path) ?? ""}`)
        .join(", ")}`;
    case "web_search":
      return `Search: ${str(item.query) ?? ""}`;
    case "mcp_tool_call":
      return `${str(item.server) ?? "mcp"}.${str(item.tool) ?? "tool"}`;
    default:
      return String(item.type);
  }
}

function itemStatus(item: Obj, done: boolean): "inProgress" | "completed" | "failed" {
  const s = str(item.status);
  if (s === "failed" || s === "declined" || (done && item.error)) return "failed";
  if (!done && s !== "completed") return "inProgress";
  if (item.type === "command_execution" && num(item.exit_code) !== undefined && item.exit_code !== 0) return "failed";
  return done ? "completed" : "inProgress";
}

function codexUsage(u: unknown): Usage | undefined {
  const x = obj(u);
  const input = num(x.input_tokens);
  const output = num(x.output_tokens);
  return cleanUsage({
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: num(x.cached_input_tokens),
    reasoningTokens: num(x.reasoning_output_tokens),
    totalTokens: input !== undefined || output !== undefined ? (input ?? 0) + (output ?? 0) : undefined,
  });
}

function codexParser(_t: TurnBuild, memo: DriverMemo): LineParser {
  const announced = new Set<string>();
  let lastError: string | undefined;
  const toolEvent = (item: Obj, done: boolean): AgentEvent[] => {
    const kind = itemKind(String(item.type));
    const id = str(item.id) ?? "";
    if (!kind) return [];
    const out: AgentEvent[] = [];
    if (!announced.has(id)) {
      announced.add(id);
      const locations = item.type === "file_change" ? arr(item.changes).map((c) => ({ path: str(obj(c).path) ?? "" })) : undefined;
      out.push({ type: "toolCall", toolCallId: id, title: itemTitle(item), kind, status: "inProgress", ...(locations?.length ? { locations } : {}), rawInput: json(item) });
    }
    if (done || item.aggregated_output) {
      const text = str(item.aggregated_output) ?? (item.result !== undefined ? JSON.stringify(item.result) : undefined) ?? str(obj(item.error).message);
      out.push({ type: "toolCallUpdate", toolCallId: id, status: itemStatus(item, done), ...(text ? { contentTexts: [text] } : {}), ...(done ? { rawOutput: json(item) } : {}) });
    }
    return out;
  };
  return {
    kind: "lines",
    line(m, sink) {
      const msg = obj(m);
      const emitAll = (es: AgentEvent[]) => es.forEach((e) => sink.emit(e));
      switch (msg.type) {
        case "thread.started": {
          const id = str(msg.thread_id);
          if (id) sink.sessionId(id);
          return;
        }
        case "turn.started":
          return;
        case "item.started":
        case "item.updated":
        case "item.completed": {
          const item = obj(msg.item);
          const done = msg.type === "item.completed";
          switch (item.type) {
            case "agent_message":
              if (done && str(item.text)) sink.emit({ type: "messageChunk", text: str(item.text)! });
              return;
            case "reasoning":
              if (done && str(item.text)) sink.emit({ type: "thoughtChunk", text: str(item.text)! });
              return;
            case "todo_list":
              sink.emit({
                type: "plan",
                entries: arr(item.items).map((e) => ({ content: str(obj(e).text) ?? "", status: obj(e).completed === true ? "completed" : "pending" })),
              });
              return;
            case "error":
              lastError = str(item.message) ?? lastError;
              sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
              return;
            default: {
              const es = toolEvent(item, done);
              if (es.length) emitAll(es);
              else sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
              return;
            }
          }
        }
        case "turn.completed": {
          const total = codexUsage(msg.usage);
          let usage: Usage | undefined;
          if (total) {
            usage = cleanUsage(diffUsage(total, memo.usageTotal));
            memo.usageTotal = total;
            if (usage) sink.emit({ type: "usage", ...usage });
          }
          sink.end({ outcome: { stopReason: "endTurn", ...(usage ? { usage } : {}) } });
          return;
        }
        case "turn.failed":
          sink.end({ error: errors.agentFailed("prompt", str(obj(msg.error).message) ?? lastError ?? "the turn failed") });
          return;
        case "error":
          lastError = str(msg.message) ?? lastError;
          // "Reconnecting... 2/5 (…)": codex retries and the turn goes on; a person should see it.
          if (/^Reconnecting\b/i.test(lastError ?? "")) sink.emit({ type: "notice", text: lastError!, retrying: true });
          else sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
          return;
        default:
          sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
      }
    },
    exited: (exit) =>
      lastError && exit.code !== 0 ? { error: errors.agentFailed("prompt", lastError) } : undefined,
  };
}

export const codexDriver: PerTurnDriver = {
  name: "codex",
  rules: codexRules,
  resume: true,
  content: { image: true, resource: true, resourceLink: true },
  command: codexCommand,
  parser: codexParser,
  // Config overrides before `exec`: `-c mcp_servers.<name>={command, args, env}` (TOML), or
  // `{url, http_headers}` for streamable HTTP; Codex has no SSE transport.
  mcp: { caps: { stdio: true, http: true, sse: false }, render: (servers) => ({ args: codexMcpArgs(servers) }) },
};
