// The native forms of options.mcpServers (R-MCP-1) and the checks every lane shares.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkMcpServers, claudeMcpConfig, codexMcpArgs, geminiMcpServers, mcpLiterals, mergeAcpMcpServers, opencodeMcpConfig, toToml } from "../../../src/lanes/mcp-servers.js";
import type { McpServer } from "../../../generated/ts/types.js";

const servers: McpServer[] = [
  { name: "local", command: "/bin/srv", args: ["a b", 'q"uote'], env: { TOKEN: "t0ken-value" } },
  { name: "remote", type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer xyz1" } },
];

test("R-MCP-1: codex -c overrides are TOML inline tables that keep quotes and spaces", () => {
  assert.deepEqual(codexMcpArgs(servers), [
    "-c",
    'mcp_servers.local={"command" = "/bin/srv", "args" = ["a b", "q\\"uote"], "env" = {"TOKEN" = "t0ken-value"}}',
    "-c",
    'mcp_servers.remote={"url" = "http://127.0.0.1:1/mcp", "http_headers" = {"Authorization" = "Bearer xyz1"}}',
  ]);
  assert.equal(toToml({ a: [1, true] }), '{"a" = [1, true]}');
});

test("R-MCP-1: claude, gemini/qwen and opencode forms", () => {
  assert.deepEqual(claudeMcpConfig(servers).mcpServers.remote, { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer xyz1" } });
  assert.deepEqual(geminiMcpServers(servers).remote, { httpUrl: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer xyz1" } });
  assert.deepEqual(geminiMcpServers([{ name: "s", type: "sse", url: "http://h/sse" }]).s, { url: "http://h/sse", headers: {} });
  assert.deepEqual(opencodeMcpConfig(servers).mcp.local, { type: "local", command: ["/bin/srv", "a b", 'q"uote'], environment: { TOKEN: "t0ken-value" }, enabled: true });
});

test("R-MCP-1: ACP merge keeps the spec's order, the option's entry replacing the spec's of the same name", () => {
  const merged = mergeAcpMcpServers([{ name: "remote", command: "old" }, { name: "keep", command: "k" }], servers);
  assert.deepEqual(merged.map((s) => [s.name, s.command ?? s.url]), [["remote", "http://127.0.0.1:1/mcp"], ["keep", "k"], ["local", "/bin/srv"]]);
  assert.deepEqual(merged[0], { type: "http", name: "remote", url: "http://127.0.0.1:1/mcp", headers: [{ name: "Authorization", value: "Bearer xyz1" }] });
});

test("R-MCP-2 / R-REC-1: env is checked by §5's rules; env and header values go to the redactor", () => {
  assert.throws(() => checkMcpServers([{ name: "x", command: "c", env: { "A-B": "1" } }]), (e: any) => e.code === "env_refused");
  assert.deepEqual(mcpLiterals(servers), [["local.TOKEN", "t0ken-value"], ["remote.Authorization", "Bearer xyz1"], ["remote.Authorization", "xyz1"]]);
});
