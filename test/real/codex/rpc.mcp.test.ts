// codex app-server (@openai/codex pinned in test/agents) on the rpc lane: options.mcpServers
// as the per-thread `config` of thread/start (`mcp_servers.<name>` overrides).
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "codex",
  npmPackage: "@openai/codex",
  // Codex 0.171 defers MCP tools behind its `tool_search` tool for the models of its catalog
  // (gpt-5.5 here); a model it does not know gets them as a `namespace` tool
  // `mcp__everything`, which the mock model can call in one step.
  spec: (run) => ({ id: "codex", lane: "rpc", dialect: "codexAppServer", command: run.command(["-c", 'model="a4aa-mock-model"', "app-server"]) }),
  expectName: /^mcp__everything\/echo$/,
});
