// `qwen`: Qwen Code (`qwen`), a Gemini CLI fork that speaks Claude Code's stream-json and
// control protocol. In stream-json input mode it asks every permission through
// `can_use_tool` (no prompt-tool flag); its approval modes are `--approval-mode`.
import { geminiMcpServers } from "../../mcp-servers.js";
import type { CliAgentSpec } from "../../../../generated/ts/types.js";
import type { LaneContext } from "../../lane.js";
import type { SelectorRules } from "../selector-rules.js";
import type { StreamJsonFlavor } from "../stream-json-flavor.js";

/** `--approval-mode` choices of Qwen Code 0.15.10 (the pinned test peer). */
export const QWEN_MODES = ["plan", "default", "auto-edit", "yolo"] as const;

export const qwenRules: SelectorRules = {
  model: true,
  mode: QWEN_MODES,
  effort: false,
  permission: ["ask", "acceptEdits", "readOnly", "bypass"],
  turnModel: false,
  turnEffort: false,
};

function qwenArgs(ctx: LaneContext<CliAgentSpec>, session: { id: string; resume: boolean }): string[] {
  const o = ctx.options;
  const args = ["--input-format", "stream-json", "--output-format", "stream-json", "--include-partial-messages"];
  args.push(session.resume ? "--resume" : "--session-id", session.id);
  if (o.model) args.push("--model", o.model);
  const mode = o.mode ?? (o.permission === "acceptEdits" ? "auto-edit" : o.permission === "bypass" ? "yolo" : "default");
  args.push("--approval-mode", mode);
  return args;
}

export const qwenFlavor: StreamJsonFlavor = {
  name: "qwen",
  rules: qwenRules,
  // 0.15.10 turns a stream-json `user` line into text (extractUserMessageText): an image
  // block would reach the model as its JSON. Images are refused; files go inline as text.
  args: qwenArgs,
  // Qwen reports a failed API call as a successful result whose text says so.
  failedText: (text) => text.trimStart().startsWith("[API Error"),
  // Measured with 0.15.10: the result's token counts grow across the turns of a session.
  usageIsRunningTotal: true,
  // `--mcp-config FILE` (0.15.10: "a path to a JSON file or inline JSON with {"mcpServers":
  // {...}}"), Gemini's settings form; added to the servers of Qwen's own settings.
  mcp: {
    caps: { stdio: true, http: true, sse: true },
    render: (servers, dir) => ({ args: ["--mcp-config", dir().write("mcp.json", JSON.stringify({ mcpServers: geminiMcpServers(servers) }))] }),
  },
};
