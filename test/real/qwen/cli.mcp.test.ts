// qwen (`qwen` stream-json, @qwen-code/qwen-code pinned in test/agents): options.mcpServers as
// `--mcp-config FILE` (Gemini's settings form).
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "qwen",
  npmPackage: "@qwen-code/qwen-code",
  spec: (run) => ({ id: "qwen", lane: "cli", driver: "qwen", command: run.command() }),
  options: () => ({ permission: "bypass" }),
  expectName: /everything.*echo/,
});
