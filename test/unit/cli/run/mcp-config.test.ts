import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { McpConfigError, readMcpConfig } from "../../../../src/cli/run/mcp-config.js";
import { scratchDir } from "../../../helpers/tmp.js";

test("the .mcp.json form (servers by name) becomes McpServer objects; streamable-http means http", () => {
  const dir = scratchDir("a4aa-mcp-config");
  const file = path.join(dir, ".mcp.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: { LOG: "1" } },
        local: { type: "stdio", command: "/usr/bin/mcp-local" },
        docs: { type: "streamable-http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer x" } },
        events: { type: "sse", url: "https://example.com/sse" },
      },
    }),
  );
  assert.deepEqual(readMcpConfig(file), [
    { name: "everything", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: { LOG: "1" } },
    { name: "local", command: "/usr/bin/mcp-local" },
    { name: "docs", type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer x" } },
    { name: "events", type: "sse", url: "https://example.com/sse" },
  ]);
});

test("a4aa's own form (an array) is taken as it is, inline JSON too; anything else names what is wrong", () => {
  assert.deepEqual(readMcpConfig('[{"name":"e","command":"node","args":["s.js"]}]'), [{ name: "e", command: "node", args: ["s.js"] }]);
  assert.throws(() => readMcpConfig('{"servers": {}}'), (e: unknown) => e instanceof McpConfigError && /wants \[/.test((e as Error).message));
  assert.throws(() => readMcpConfig('{"mcpServers": {"bad name": {"command": "x"}}}'), /server "bad name" is not an MCP server a4aa knows/);
  assert.throws(() => readMcpConfig('{"mcpServers": {"x": "node"}}'), /must be an object/);
  assert.throws(() => readMcpConfig('{"mcpServers": {"x": {"command": "n", "cwd": "/"}}}'), /additional properties/);
  assert.throws(() => readMcpConfig("no-such-file.json"), /neither JSON nor a file/);
});
