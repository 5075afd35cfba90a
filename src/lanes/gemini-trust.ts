// Gemini CLI (both lanes) loads MCP servers only in a folder it trusts; with its default
// folder trust on and the session's cwd not in its trusted folders, the servers the host
// gave vanish without a word (issue 29: 15 tools instead of 31). The host chose the cwd and
// asked for the servers: a4aa makes that workspace trusted for this agent process through
// Gemini's own switch, GEMINI_CLI_TRUST_WORKSPACE=true (measured in gemini-cli 0.61's
// checkPathTrust). A host that set it (or GEMINI_RESTRICTED_MODE) against that is refused
// with the fix — never a silent drop.
import type { AgentSpec, McpServer } from "../../generated/ts/types.js";
import { type A4aaError, errors } from "../errors.js";
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

/**
 * Gemini CLI's headless mode (the cli lane, or `gemini` without `--acp`) refuses to start in a
 * folder it does not trust: exit 55, "Gemini CLI is not running in a trusted directory…". As
 * the host sees it: agent_failed (the agent did nothing), with the fix in a4aa's terms, not
 * `agent_exited` and "check its install". Anything else passes through unchanged.
 */
export function asUntrustedFolder(spec: AgentSpec | undefined, err: A4aaError, cwd: string | undefined): A4aaError {
  if (!spec || (err.code !== "agent_exited" && err.code !== "spawn_failed") || !/Gemini CLI is not running in a trusted directory/i.test(err.detail ?? "")) return err;
  const stage = err.stage === "prompt" ? "prompt" : "initialize";
  return errors.agentFailed(
    stage,
    `Gemini CLI refuses to run headless in a folder it does not trust (${cwd ?? "the session's cwd"}). ` +
      "To trust it for this session, give the agent GEMINI_CLI_TRUST_WORKSPACE=true (session/open env; with a4aa run: --env GEMINI_CLI_TRUST_WORKSPACE=true), " +
      "or trust the folder once by running `gemini` there; or use the acp lane (`gemini --acp`).\n" +
      (err.detail ?? ""),
    false,
  );
}
