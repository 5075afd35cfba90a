// gemini (`gemini -o stream-json`, @google/gemini-cli pinned in test/agents): options.mcpServers
// in a per-session system settings file (GEMINI_CLI_SYSTEM_SETTINGS_PATH); the tool is `mcp_<server>_echo`.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "gemini",
  npmPackage: "@google/gemini-cli",
  spec: (run) => ({ id: "gemini", lane: "cli", driver: "gemini", command: run.command() }),
  options: (run) => ({ model: run.model, permission: "bypass" }),
  expectName: /^mcp_everything_echo$/,
});
