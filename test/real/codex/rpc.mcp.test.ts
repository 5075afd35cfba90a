// codex app-server (@openai/codex pinned in test/agents) on the rpc lane: options.mcpServers
// as the per-thread `config` of thread/start (`mcp_servers.<name>` overrides).
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "codex",
  npmPackage: "@openai/codex",
  spec: (run) => ({ id: "codex", lane: "rpc", dialect: "codexAppServer", command: run.command(["app-server"]) }),
  expectName: /everything.*echo/,
});
