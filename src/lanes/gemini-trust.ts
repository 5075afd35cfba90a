// Gemini CLI (both lanes) loads MCP servers only in a folder it trusts; with its default
// folder trust on and the session's cwd not in its trusted folders, the servers the host
// gave vanish without a word (issue 29: 15 tools instead of 31). The host chose the cwd and
// asked for the servers: a4aa makes that workspace trusted for this agent process through
// Gemini's own switch, GEMINI_CLI_TRUST_WORKSPACE=true (measured in gemini-cli 0.61's
// checkPathTrust). A host that set it (or GEMINI_RESTRICTED_MODE) against that is refused
// with the fix — never a silent drop.
import type { AgentSpec, McpServer } from "../../generated/ts/types.js";
import { errors } from "../errors.js";
import { agentFamily } from "./credential-hints.js";

export function trustWorkspaceForMcp(spec: AgentSpec, mcpServers: readonly McpServer[] | undefined, env: Record<string, string>): void {
  const wants = (mcpServers?.length ?? 0) > 0 || (spec.lane === "acp" && (spec.mcpServers?.length ?? 0) > 0);
  if (!wants || agentFamily(spec) !== "gemini") return;
  if (env.GEMINI_CLI_TRUST_WORKSPACE === "false" || env.GEMINI_RESTRICTED_MODE === "true") {
    throw errors.unsupportedSelector(
      "open",
      "mcpServers: Gemini CLI ignores MCP servers in a folder it does not trust, and this open's environment makes the folder untrusted (GEMINI_CLI_TRUST_WORKSPACE=false or GEMINI_RESTRICTED_MODE=true): drop that variable, or open without mcpServers",
    );
  }
  env.GEMINI_CLI_TRUST_WORKSPACE = "true";
}
