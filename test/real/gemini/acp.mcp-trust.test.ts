// Issue 29 item 4: gemini --acp with its folder trust ON (a fresh install's default) and the
// session's cwd not trusted: the MCP servers the host gives are still offered to the model
// (a4aa trusts the session's workspace for that process), not silently dropped.
import { mcpRealCase } from "../helpers/mcp-case.js";

mcpRealCase({
  agent: "gemini-acp",
  npmPackage: "@google/gemini-cli",
  spec: (run) => ({ id: "gemini-acp", lane: "acp", command: run.command() }),
  expectName: /^mcp_everything_echo$/,
  prepare: { folderTrust: true },
});
