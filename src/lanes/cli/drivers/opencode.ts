// `opencode`: `opencode run --format json --thinking … -- <prompt>`, one process per turn.
// Events: step_start, text (whole parts), reasoning, tool_use (finished tools), step_finish
// (tokens, cost), error. There is no final event: the turn ends when the process exits.
import type { McpServer } from "../../../../generated/ts/types.js";
import { opencodeMcpConfig } from "../../mcp-servers.js";
import type { Usage } from "../../../../generated/ts/types.js";
import { errors } from "../../../errors.js";
import { json, num, obj, str } from "../loose-json.js";
import type { SelectorRules } from "../selector-rules.js";
import { toolKind, toolLocations, toolTitle } from "../tool-calls.js";
import { addUsage, cleanUsage } from "../usage.js";
import type { LineParser } from "../turn-process.js";
import type { PerTurnDriver, TurnBuild } from "../turn-session.js";

export const opencodeRules: SelectorRules = {
  // `provider/model`.
  model: true,
  // `--agent`: opencode's own agents (build, plan, or one the user defined).
  mode: ["build", "plan"],
  // `--variant`: the provider's reasoning-effort variants.
  effort: ["minimal", "low", "medium", "high", "xhigh"],
  // Without --auto, `opencode run` rejects every permission it would ask.
  permission: ["readOnly", "bypass"],
  turnModel: true,
  turnEffort: true,
};

function opencodeCommand(t: TurnBuild): { args: string[]; tail: string[] } {
  const o = t.ctx.options;
  const args = ["run", "--format", "json", "--thinking"];
  if (t.continuing && t.nativeSessionId) args.push("--session", t.nativeSessionId);
  const model = t.input.model ?? o.model;
  if (model) args.push("--model", model);
  if (o.mode) args.push("--agent", o.mode);
  const effort = t.input.effort ?? o.effort;
  if (effort) args.push("--variant", effort);
  if (o.permission === "bypass") args.push("--auto");
  // The prompt's images as attached files: opencode sends them to a model whose config
  // declares image input (otherwise it tells the model it cannot read them).
  for (const image of t.images) args.push("-f", image);
  return { args, tail: ["--", t.input.text] };
}

function stepUsage(part: unknown): Usage | undefined {
  const p = obj(part);
  const tok = obj(p.tokens);
  const input = num(tok.input);
  const output = num(tok.output);
  const cacheRead = num(obj(tok.cache).read);
  const cacheWrite = num(obj(tok.cache).write);
  const inputAll = input === undefined ? undefined : input + (cacheRead ?? 0) + (cacheWrite ?? 0);
  return cleanUsage({
    inputTokens: inputAll,
    outputTokens: output,
    cachedInputTokens: cacheRead,
    reasoningTokens: num(tok.reasoning),
    totalTokens: inputAll !== undefined || output !== undefined ? (inputAll ?? 0) + (output ?? 0) + (num(tok.reasoning) ?? 0) : undefined,
    costUsd: num(p.cost),
  });
}

function opencodeParser(): LineParser {
  let usage: Usage | undefined;
  const failures: string[] = [];
  return {
    kind: "lines",
    line(m, sink) {
      const msg = obj(m);
      const sid = str(msg.sessionID);
      if (sid) sink.sessionId(sid);
      const part = obj(msg.part);
      switch (msg.type) {
        case "step_start":
          return;
        case "text":
          if (str(part.text)) sink.emit({ type: "messageChunk", text: str(part.text)! });
          return;
        case "reasoning":
          if (str(part.text)) sink.emit({ type: "thoughtChunk", text: str(part.text)! });
          return;
        case "tool_use": {
          const name = str(part.tool) ?? "tool";
          const state = obj(part.state);
          const id = str(part.callID) ?? str(part.id) ?? name;
          const locations = toolLocations(state.input);
          sink.emit({
            type: "toolCall",
            toolCallId: id,
            title: str(state.title) ?? toolTitle(name, state.input),
            kind: toolKind(name),
            status: "inProgress",
            ...(locations ? { locations } : {}),
            rawInput: json(state.input),
          });
          const out = str(state.output) ?? str(state.error);
          sink.emit({
            type: "toolCallUpdate",
            toolCallId: id,
            status: state.status === "error" ? "failed" : "completed",
            ...(out ? { contentTexts: [out] } : {}),
            rawOutput: json(state),
          });
          return;
        }
        case "step_finish": {
          const u = stepUsage(part);
          if (u) {
            usage = addUsage(usage, u);
            sink.emit({ type: "usage", ...u });
          }
          return;
        }
        case "error": {
          const e = obj(msg.error);
          failures.push(str(obj(e.data).message) ?? str(e.message) ?? str(e.name) ?? JSON.stringify(msg.error));
          sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
          return;
        }
        default:
          sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
      }
    },
    exited(exit) {
      if (failures.length) return { error: errors.agentFailed("prompt", failures.join("\n")) };
      if (exit.code === 0) return { outcome: { stopReason: "endTurn", ...(usage ? { usage } : {}) } };
      return undefined;
    },
  };
}

export const opencodeDriver: PerTurnDriver = {
  name: "opencode",
  rules: opencodeRules,
  resume: true,
  content: { image: true, resource: true, resourceLink: true },
  command: opencodeCommand,
  parser: opencodeParser,
  // `mcp` entries (`local` command arrays, `remote` URLs — streamable HTTP with SSE
  // fallback) in a 0600 config file named by OPENCODE_CONFIG, merged over opencode's own
  // files. Not OPENCODE_CONFIG_CONTENT: opencode hands its environment to every MCP child,
  // which would then read every server's env values. A session that sets OPENCODE_CONFIG
  // itself gets them in OPENCODE_CONFIG_CONTENT instead (added to one it sets).
  mcp: {
    caps: { stdio: true, http: true, sse: true },
    render: (servers, dir, env): { env: Record<string, string> } =>
      env.OPENCODE_CONFIG === undefined
        ? { env: { OPENCODE_CONFIG: dir().write("opencode.json", JSON.stringify(opencodeMcpConfig(servers))) } }
        : { env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(withOpencodeMcp(env.OPENCODE_CONFIG_CONTENT, servers)) } },
  },
};

/** `existing` (an OPENCODE_CONFIG_CONTENT the session sets; ignored unless a JSON object) with the servers' `mcp` entries added. */
function withOpencodeMcp(existing: string | undefined, servers: readonly McpServer[]): Record<string, unknown> {
  let base: Record<string, unknown> = {};
  try {
    const v: unknown = existing ? JSON.parse(existing) : {};
    if (v && typeof v === "object" && !Array.isArray(v)) base = v as Record<string, unknown>;
  } catch {
    // not JSON: opencode would reject it too; the servers' config replaces it
  }
  const mcp = base.mcp && typeof base.mcp === "object" ? (base.mcp as Record<string, unknown>) : {};
  return { ...base, mcp: { ...mcp, ...opencodeMcpConfig(servers).mcp } };
}
