// `claudeCode`: Claude Code (`claude`) in stream-json input/output mode, one process per
// session, permissions asked through the control protocol (`--permission-prompt-tool stdio`).
import type { CliAgentSpec } from "../../../../generated/ts/types.js";
import type { LaneContext } from "../../lane.js";
import { claudeMcpConfig } from "../../mcp-servers.js";
import type { McpHandover } from "../mcp-handover.js";
import type { SelectorRules } from "../selector-rules.js";
import type { StreamJsonFlavor } from "../stream-json-flavor.js";

/** `--permission-mode` choices of Claude Code 2.1.197 (the pinned test peer). */
export const CLAUDE_MODES = ["default", "acceptEdits", "auto", "bypassPermissions", "dontAsk", "plan"] as const;

export const claudeRules: SelectorRules = {
  model: true,
  mode: CLAUDE_MODES,
  // `--effort` takes low, medium, high, xhigh (and max, which a4aa does not name).
  effort: ["low", "medium", "high", "xhigh"],
  permission: ["ask", "acceptEdits", "readOnly", "bypass"],
  turnModel: false,
  turnEffort: false,
};

export const STREAM_JSON_ARGS = ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages"];

function claudeArgs(ctx: LaneContext<CliAgentSpec>, session: { id: string; resume: boolean }): string[] {
  const o = ctx.options;
  const args = ["-p", ...STREAM_JSON_ARGS, "--permission-prompt-tool", "stdio"];
  args.push(session.resume ? "--resume" : "--session-id", session.id);
  if (o.model) args.push("--model", o.model);
  if (o.effort) args.push("--effort", o.effort);
  // `ask` and `readOnly` keep the CLI's default mode: what it would ask comes to the
  // session's preset (readOnly rejects all but reads) or to the host.
  const mode = o.mode ?? (o.permission === "acceptEdits" ? "acceptEdits" : o.permission === "bypass" ? "bypassPermissions" : undefined);
  if (mode) args.push("--permission-mode", mode);
  return args;
}

export const claudeCodeFlavor: StreamJsonFlavor = {
  name: "claudeCode",
  rules: claudeRules,
  // Image blocks in the stream-json `user` line reach the model as they are.
  content: { image: true, resource: true, resourceLink: true },
  args: claudeArgs,
  // Measured with 2.1.197: `total_cost_usd` grows across the turns of one process.
  costIsRunningTotal: true,
  mcp: claudeMcp(),
};

/**
 * `--mcp-config FILE --strict-mcp-config`: a 0600 file in the session's private folder
 * (not inline JSON: argv is readable by every local user), and only these servers.
 */
function claudeMcp(): McpHandover {
  return {
    caps: { stdio: true, http: true, sse: true },
    render: (servers, dir) => ({ args: ["--mcp-config", dir().write("mcp.json", JSON.stringify(claudeMcpConfig(servers))), "--strict-mcp-config"] }),
  };
}
