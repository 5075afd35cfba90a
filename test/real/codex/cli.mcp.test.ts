// codex (`codex exec --json`, @openai/codex pinned in test/agents): options.mcpServers as
// `-c mcp_servers.<name>={…}` config overrides.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "codex",
  npmPackage: "@openai/codex",
  spec: (run) => ({ id: "codex", lane: "cli", driver: "codex", command: run.command() }),
  options: () => ({ permission: "bypass" }),
  expectName: /everything.*echo/,
});
