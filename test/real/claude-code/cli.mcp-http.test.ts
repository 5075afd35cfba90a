// claudeCode (`claude` stream-json): an http (streamable HTTP) MCP server in options.mcpServers,
// handed over in the --mcp-config file with its headers.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "claude",
  npmPackage: "@anthropic-ai/claude-code",
  spec: (run) => ({ id: "claude", lane: "cli", driver: "claudeCode", command: run.command() }),
  expectName: /^mcp__everything__echo$/,
  transport: "http",
});
