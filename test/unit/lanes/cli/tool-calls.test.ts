// Tool kinds by the names the CLIs give their tools.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toolKind } from "../../../../src/lanes/cli/tool-calls.js";

describe("cli lane: tool kinds", () => {
  const cases: [string, string][] = [
    ["Bash", "execute"],
    ["run_shell_command", "execute"],
    ["shellToolCall", "execute"],
    ["Read", "read"],
    ["readToolCall", "read"],
    ["Edit", "edit"],
    ["write_file", "edit"],
    ["Grep", "search"],
    ["glob", "search"],
    ["WebFetch", "fetch"],
    ["TodoWrite", "think"],
    ["mcp__server__thing", "other"],
  ];
  for (const [name, kind] of cases) it(`${name} → ${kind}`, () => assert.equal(toolKind(name), kind));
});
