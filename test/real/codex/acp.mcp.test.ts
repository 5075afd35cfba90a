// codex-acp (@agentclientprotocol/codex-acp pinned in test/agents, with its own codex 0.166)
// on the acp lane: options.mcpServers in session/new's ACP form.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "codex-acp",
  npmPackage: "@agentclientprotocol/codex-acp",
  spec: (run) => ({ id: "codex-acp", lane: "acp", command: run.command() }),
  // Like codex app-server (rpc.mcp.test.ts): a model outside codex's catalog gets the MCP
  // tools as a namespace tool instead of behind its hosted tool_search.
  prepare: { model: "a4aa-mock-model" },
  expectName: /^mcp__everything(\/|__)echo$/,
});
