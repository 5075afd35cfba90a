// `gemini`: Gemini CLI headless, `gemini -o stream-json --prompt=<text>`, one process per
// turn. Events: init (session id), message (user echo; assistant deltas), tool_use,
// tool_result, error (warnings and errors), result (status, stats).
import { homedir } from "node:os";
import { geminiMcpServers } from "../../mcp-servers.js";
import type { Usage } from "../../../../generated/ts/types.js";
import { errors } from "../../../errors.js";
import { json, num, obj, str } from "../loose-json.js";
import type { SelectorRules } from "../selector-rules.js";
import { toolKind, toolLocations, toolTitle } from "../tool-calls.js";
import { cleanUsage } from "../usage.js";
import type { LineParser } from "../turn-process.js";
import type { PerTurnDriver, TurnBuild } from "../turn-session.js";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { blockText } from "../../content-text.js";

export const GEMINI_MODES = ["default", "auto_edit", "yolo", "plan"] as const;

export const geminiRules: SelectorRules = {
  model: true,
  mode: GEMINI_MODES,
  effort: false,
  permission: ["readOnly", "acceptEdits", "bypass"],
  turnModel: true,
  turnEffort: false,
};

const APPROVAL = { readOnly: "default", acceptEdits: "auto_edit", bypass: "yolo", ask: "default" } as const;

function geminiCommand(t: TurnBuild): { args: string[]; tail: string[] } {
  const o = t.ctx.options;
  const args = ["-o", "stream-json"];
  if (t.nativeSessionId) args.push(t.continuing ? "--resume" : "--session-id", t.nativeSessionId);
  const model = t.input.model ?? o.model;
  if (model) args.push("-m", model);
  args.push("--approval-mode", o.mode ?? APPROVAL[o.permission]);
  // Images go as `@path` includes: the turn's folder joins the workspace for this run.
  if (t.images.length) args.push("--include-directories", path.dirname(t.images[0]));
  // `--prompt=` keeps a prompt that starts with "-" from being read as a flag.
  return { args, tail: [`--prompt=${t.images.length ? geminiPrompt(t) : t.input.text}`] };
}

/** The blocks in order, each image as `@path` (spaces escaped, as Gemini CLI reads them). */
function geminiPrompt(t: TurnBuild): string {
  let k = 0;
  return t.input.blocks
    .map((b) => (b.type === "image" ? `@${t.images[k++].replace(/ /g, "\\ ")}` : blockText(b)))
    .filter((s): s is string => !!s)
    .join("\n\n");
}

function geminiUsage(stats: unknown): Usage | undefined {
  const s = obj(stats);
  return cleanUsage({
    inputTokens: num(s.input_tokens),
    outputTokens: num(s.output_tokens),
    cachedInputTokens: num(s.cached),
    totalTokens: num(s.total_tokens),
  });
}

function geminiParser(): LineParser {
  let lastError: string | undefined;
  return {
    kind: "lines",
    line(m, sink) {
      const msg = obj(m);
      switch (msg.type) {
        case "init": {
          const id = str(msg.session_id);
          if (id) sink.sessionId(id);
          sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
          return;
        }
        case "message": {
          const text = str(msg.content) ?? "";
          if (msg.role === "assistant") {
            if (text) sink.emit({ type: msg.thought === true ? "thoughtChunk" : "messageChunk", text });
          } else if (msg.role !== "user") sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
          // The user's own prompt is echoed back: nothing to forward.
          return;
        }
        case "tool_use": {
          const name = str(msg.tool_name) ?? "tool";
          const locations = toolLocations(msg.parameters);
          sink.emit({
            type: "toolCall",
            toolCallId: str(msg.tool_id) ?? name,
            title: toolTitle(name, msg.parameters),
            kind: toolKind(name),
            status: "inProgress",
            ...(locations ? { locations } : {}),
            rawInput: json(msg.parameters),
          });
          return;
        }
        case "tool_result": {
          const text = str(msg.output) ?? str(obj(msg.error).message);
          sink.emit({
            type: "toolCallUpdate",
            toolCallId: str(msg.tool_id) ?? "",
            status: msg.status === "error" ? "failed" : "completed",
            ...(text ? { contentTexts: [text] } : {}),
            rawOutput: json(msg),
          });
          return;
        }
        case "error":
          if (msg.severity === "error") lastError = str(msg.message) ?? lastError;
          sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
          return;
        case "result": {
          const usage = geminiUsage(msg.stats);
          if (usage) sink.emit({ type: "usage", ...usage });
          if (msg.status === "success") sink.end({ outcome: { stopReason: "endTurn", ...(usage ? { usage } : {}) } });
          else sink.end({ error: errors.agentFailed("prompt", str(obj(msg.error).message) ?? lastError ?? "the turn failed") });
          return;
        }
        default:
          sink.emit({ type: "raw", source: "stdout", payload: json(msg) });
      }
    },
    // API errors end with odd exit codes and, sometimes, only an `error` event.
    exited: () => (lastError ? { error: errors.agentFailed("prompt", lastError) } : undefined),
  };
}

export const geminiDriver: PerTurnDriver = {
  name: "gemini",
  rules: geminiRules,
  resume: true,
  content: { image: true, resource: true, resourceLink: true },
  env: () => ({ GEMINI_CLI_NO_RELAUNCH: "true" }),
  newSessionId: () => randomUUID(),
  command: geminiCommand,
  parser: geminiParser,
  // A per-session settings file with `mcpServers`, read as Gemini's system settings
  // (GEMINI_CLI_SYSTEM_SETTINGS_PATH, 0.61): it stands in for /etc/gemini-cli/settings.json
  // and is merged over the user's settings. Gemini skips (with a warning only) a system
  // settings file that is not owned by root or has a group/other-writable folder above it
  // (/tmp is): so only a sidecar running as root can hand servers to headless Gemini, from a
  // folder under its home; any other refuses them (gemini --acp on the acp lane takes them).
  mcp: {
    caps: process.getuid?.() === 0 ? { stdio: true, http: true, sse: true } : { stdio: false, http: false, sse: false },
    render: (servers, dir) => ({
      env: {
        GEMINI_CLI_SYSTEM_SETTINGS_PATH: dir(path.join(homedir(), ".cache", "a4aa")).write("settings.json", JSON.stringify({ mcpServers: geminiMcpServers(servers) })),
      },
    }),
  },
};
