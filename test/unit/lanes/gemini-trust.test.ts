// Issue 29 item 4: Gemini's MCP servers are never dropped silently (src/lanes/gemini-trust.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentSpec, McpServer } from "../../../generated/ts/types.js";
import { A4aaError } from "../../../src/errors.js";
import { trustWorkspaceForMcp } from "../../../src/lanes/gemini-trust.js";

const gemini = { id: "gemini", lane: "acp", command: { program: "/x/bin/gemini", args: ["--acp"], env: { policy: "sanitized" } } } as AgentSpec;
const claude = { id: "c", lane: "cli", driver: "claudeCode", command: { program: "claude", args: [], env: { policy: "sanitized" } } } as AgentSpec;
const servers: McpServer[] = [{ name: "everything", command: "/x/mcp", args: [] } as McpServer];

test("gemini with MCP servers: its workspace is trusted for the process; without servers, or another agent, nothing changes", () => {
  const env: Record<string, string> = {};
  trustWorkspaceForMcp(gemini, servers, env);
  assert.equal(env.GEMINI_CLI_TRUST_WORKSPACE, "true");
  const none: Record<string, string> = {};
  trustWorkspaceForMcp(gemini, [], none);
  trustWorkspaceForMcp(claude, servers, none);
  assert.deepEqual(none, {});
});

test("gemini with MCP servers in an environment that makes the folder untrusted: refused with the fix", () => {
  for (const env of [{ GEMINI_CLI_TRUST_WORKSPACE: "false" }, { GEMINI_RESTRICTED_MODE: "true" }] as Record<string, string>[]) {
    assert.throws(
      () => trustWorkspaceForMcp(gemini, servers, { ...env }),
      (e: unknown) => e instanceof A4aaError && e.code === "unsupported_selector" && /drop that variable, or open without mcpServers/.test(e.detail ?? ""),
    );
  }
});
