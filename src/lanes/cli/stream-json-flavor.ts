// What a stream-json CLI driver (Claude Code, Qwen Code) tells StreamJsonSession: its flags,
// environment, selector rules, content, and how its results and totals read.
import type { CliAgentSpec, ContentCapabilities } from "../../../generated/ts/types.js";
import type { LaneContext, ResolvedOptions } from "../lane.js";
import type { McpHandover } from "./mcp-handover.js";
import type { SelectorRules } from "./selector-rules.js";

export interface StreamJsonFlavor {
  readonly name: "claudeCode" | "qwen";
  readonly rules: SelectorRules;
  /** What the CLI takes beside text in a `user` line (default: no images). */
  readonly content?: ContentCapabilities;
  precheck?(options: ResolvedOptions, resume: string | undefined): void;
  /** The driver's own flags: stream-json mode, the session (new id or resume), selectors. */
  args(ctx: LaneContext<CliAgentSpec>, session: { id: string; resume: boolean }): string[];
  env?(ctx: LaneContext<CliAgentSpec>): Record<string, string>;
  /** A success result whose text is really a failure. */
  failedText?(text: string): boolean;
  /** `total_cost_usd` is the process's running total: report each turn's difference. */
  costIsRunningTotal?: boolean;
  /** The result's usage is the session's running total: report each turn's difference. */
  usageIsRunningTotal?: boolean;
  /** How the CLI takes `options.mcpServers` (R-MCP-1). */
  readonly mcp?: McpHandover;
}
