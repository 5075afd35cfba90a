// codex app-server on the rpc lane: an http (streamable HTTP) MCP server in options.mcpServers,
// handed over as `mcp_servers.<name> = {url, http_headers}` in thread/start's config.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "codex",
  npmPackage: "@openai/codex",
  // A model outside Codex's catalog: its MCP tools come as a namespace tool (see rpc.mcp.test.ts).
  spec: (run) => ({ id: "codex", lane: "rpc", dialect: "codexAppServer", command: run.command(["-c", 'model="a4aa-mock-model"', "app-server"]) }),
  expectName: /^mcp__everything\/echo$/,
  transport: "http",
});
