// gemini --acp (@google/gemini-cli pinned in test/agents) on the acp lane: options.mcpServers
// in session/new `mcpServers` (ACP form); the tool is `mcp_<server>_echo`.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "gemini-acp",
  npmPackage: "@google/gemini-cli",
  spec: (run) => ({ id: "gemini-acp", lane: "acp", command: run.command() }),
  expectName: /^mcp_everything_echo$/,
});
