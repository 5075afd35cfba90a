// gemini --acp on the acp lane: an http (streamable HTTP) MCP server in options.mcpServers,
// in session/new's ACP form (gemini 0.61 offers mcpCapabilities.http).
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "gemini-acp",
  npmPackage: "@google/gemini-cli",
  spec: (run) => ({ id: "gemini-acp", lane: "acp", command: run.command() }),
  expectName: /^mcp_everything_echo$/,
  transport: "http",
});
