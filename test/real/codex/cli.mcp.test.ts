// codex (`codex exec --json`, @openai/codex pinned in test/agents): options.mcpServers as
// `-c mcp_servers.<name>={…}` config overrides.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "codex",
  npmPackage: "@openai/codex",
  // Codex 0.171 defers MCP tools behind its `tool_search` tool for the models of its catalog
  // (gpt-5.5 here); a model it does not know gets them as a `namespace` tool
  // `mcp__everything`, which the mock model can call in one step.
  spec: (run) => {
    const command = run.command();
    return { id: "codex", lane: "cli", driver: "codex", command: { ...command, args: ["-c", 'model="a4aa-mock-model"', ...command.args] } };
  },
  options: () => ({ permission: "bypass" }),
  expectName: /^mcp__everything\/echo$/,
});
