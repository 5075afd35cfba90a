// claudeCode (`claude` stream-json, @anthropic-ai/claude-code pinned in test/agents): options.mcpServers
// as `--mcp-config FILE --strict-mcp-config`; the MCP tool is `mcp__<server>__echo`.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "claude",
  npmPackage: "@anthropic-ai/claude-code",
  spec: (run) => ({ id: "claude", lane: "cli", driver: "claudeCode", command: run.command() }),
  expectName: /^mcp__everything__echo$/,
});
