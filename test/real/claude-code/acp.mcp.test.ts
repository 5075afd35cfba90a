// claude-agent-acp (@agentclientprotocol/claude-agent-acp pinned in test/agents) on the acp lane:
// options.mcpServers in session/new's ACP form; the tool is `mcp__<server>__echo`.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "claude-agent-acp",
  npmPackage: "@agentclientprotocol/claude-agent-acp",
  spec: (run) => ({ id: "claude-agent-acp", lane: "acp", command: run.command() }),
  expectName: /^mcp__everything__echo$/,
});
