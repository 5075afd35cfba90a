// opencode (`opencode run --format json`, opencode-ai pinned in test/agents): options.mcpServers
// as `mcp` entries in OPENCODE_CONFIG_CONTENT.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "opencode",
  npmPackage: "opencode-ai",
  spec: (run) => ({ id: "opencode", lane: "cli", driver: "opencode", command: run.command() }),
  options: () => ({ permission: "bypass" }),
  expectName: /everything.*echo/,
});
