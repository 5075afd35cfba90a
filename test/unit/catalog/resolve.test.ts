// session/open {agent} → AgentSpec (R-AGENT-1…3): lane choice, installation, credentials,
// redaction, the environment policy; all decided without running anything.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { AgentCatalog } from "../../../src/catalog/catalog.js";
import { REDACTED } from "../../../src/catalog/resolve.js";
import { A4aaError } from "../../../src/errors.js";
import { scratchDir } from "../../helpers/tmp.js";

function binDir(...names: string[]): string {
  const d = path.join(scratchDir("a4aa-catalog-bin"), "bin");
  mkdirSync(d);
  for (const n of names) {
    writeFileSync(path.join(d, n), "#!/bin/sh\necho 1.2.3\n");
    chmodSync(path.join(d, n), 0o755);
  }
  return d;
}

const catalogWith = (PATH: string, extra: Record<string, string> = {}, isRoot = false) =>
  new AgentCatalog({ hostEnv: { PATH, HOME: "/home/u", LC_ALL: "C.UTF-8", SECRET: "x", ...extra }, isRoot });

function throwsCode(fn: () => unknown, code: string, detail?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof A4aaError, String(e));
    assert.equal(e.code, code, e.message);
    if (detail) assert.match(e.detail ?? "", detail);
    return true;
  });
}

test("R-AGENT-2: an unknown id is unknown_agent (stage open) naming the known ids", () => {
  throwsCode(() => catalogWith(binDir()).resolve({ id: "no-such-agent" }), "unknown_agent", /known ids: example, claude-code, .*gemini/);
  try {
    catalogWith(binDir()).resolve({ id: "nope" });
  } catch (e) {
    assert.equal((e as A4aaError).stage, "open");
  }
});

test("the default lane is the first whose program is installed; lane picks another; a missing one is unsupported_selector", () => {
  const PATH = binDir("codex");
  const c = catalogWith(PATH);
  const rpc = c.resolve({ id: "codex" }).spec;
  assert.equal(rpc.lane, "rpc");
  assert.equal((rpc as { dialect: string }).dialect, "codexAppServer");
  assert.deepEqual(rpc.command.args, ["app-server"]);
  assert.equal(rpc.command.program, path.join(PATH, "codex"), "the program as found on the sidecar's PATH");
  const cli = c.resolve({ id: "codex", lane: "cli" }).spec;
  assert.equal(cli.lane, "cli");
  assert.equal((cli as { driver: string }).driver, "codex");
  throwsCode(() => c.resolve({ id: "codex", lane: "acp" }), "unsupported_selector", /offers the lanes rpc, cli, not "acp"/);
  // gemini prefers acp; with only gemini installed both lanes are there, so acp wins
  const g = catalogWith(binDir("gemini")).resolve({ id: "gemini" }).spec;
  assert.equal(g.lane, "acp");
  assert.deepEqual(g.command.args, ["--acp"]);
});

test("R-AGENT-2: a program that is not installed is spawn_failed with the install command", () => {
  throwsCode(() => catalogWith(binDir()).resolve({ id: "claude-code" }), "spawn_failed", /"claude" is not on the sidecar's PATH.*npm install -g @anthropic-ai\/claude-code@2\.1\.197/);
  throwsCode(() => catalogWith(binDir("claude")).resolve({ id: "gemini", lane: "cli" }), "spawn_failed", /npm install -g @google\/gemini-cli/);
});

test("R-AGENT-3: credentials may only name declared variables (env_refused), are literals, and are redacted in the shown spec", () => {
  const c = catalogWith(binDir("claude"));
  throwsCode(() => c.resolve({ id: "claude-code", credentials: { OPENAI_API_KEY: "k" } }), "env_refused", /OPENAI_API_KEY is not a credential variable of "claude-code" \(ANTHROPIC_API_KEY/);
  const r = c.resolve({ id: "claude-code", credentials: { ANTHROPIC_API_KEY: "sk-secret" }, set: { ANTHROPIC_BASE_URL: "http://127.0.0.1:9", FOO: "bar" } });
  const env = r.spec.command.env as { policy: string; inherit: string[]; set: Record<string, string> };
  assert.equal(env.policy, "sanitized", "never inheritAll");
  assert.equal(env.set.ANTHROPIC_API_KEY, "sk-secret");
  assert.equal(env.set.FOO, "bar");
  assert.equal(env.set.DISABLE_TELEMETRY, "1", "the entry's headless settings");
  assert.equal(env.set.DISABLE_AUTOUPDATER, "1");
  assert.ok(env.inherit.includes("PATH") && env.inherit.includes("HOME") && env.inherit.includes("LC_ALL"));
  assert.ok(!env.inherit.includes("SECRET"), "only allowlisted names are inherited");
  const shown = r.shown.command.env as { set: Record<string, string> };
  assert.equal(shown.set.ANTHROPIC_API_KEY, REDACTED);
  assert.equal(shown.set.ANTHROPIC_BASE_URL, REDACTED, "a declared variable is redacted whichever way it came");
  assert.equal(shown.set.FOO, "bar");
  assert.ok(!JSON.stringify(r.shown).includes("sk-secret"));
});

test("root settings apply only as root (Claude's IS_SANDBOX); program and args of the selection", () => {
  const PATH = binDir("claude");
  const set = (root: boolean) => (catalogWith(PATH, {}, root).resolve({ id: "claude-code" }).spec.command.env as { set: Record<string, string> }).set;
  assert.equal(set(true).IS_SANDBOX, "1");
  assert.equal(set(false).IS_SANDBOX, undefined);
  const other = binDir("my-claude");
  const r = catalogWith(PATH).resolve({ id: "claude-code", program: path.join(other, "my-claude"), args: ["--debug"] }).spec;
  assert.equal(r.command.program, path.join(other, "my-claude"));
  assert.deepEqual(r.command.args, ["--debug"]);
});

test("the example agent resolves to node and the bundled script, whatever the PATH", () => {
  const r = catalogWith("").resolve({ id: "example" }).spec;
  assert.equal(r.lane, "acp");
  assert.equal(r.command.program, process.execPath);
  assert.match(r.command.args[0], /dist\/src\/examples\/example-agent\.js$/);
});

test("agents/list: installed from PATH without running anything, lanes in order, sources", async () => {
  const PATH = binDir("gemini", "qwen");
  const { agents } = await catalogWith(PATH).list();
  const byId = Object.fromEntries(agents.map((a) => [a.id, a]));
  assert.equal(byId.gemini.installed, true);
  assert.equal(byId.gemini.path, path.join(PATH, "gemini"));
  assert.equal(byId.gemini.version, undefined, "no probe, no version");
  assert.deepEqual(byId.gemini.lanes.map((l) => l.lane), ["acp", "cli"]);
  assert.equal(byId["claude-code"].installed, false);
  assert.equal(byId.example.installed, true);
  assert.equal(byId.example.source, "builtin");
  assert.ok(byId.gemini.credentials.some((c) => c.name === "GEMINI_API_KEY" && c.required));
});

test("agents/list probe: versions read in parallel, cached", async () => {
  const PATH = binDir("gemini", "qwen");
  const c = catalogWith(PATH);
  const { agents } = await c.list(true);
  assert.equal(agents.find((a) => a.id === "gemini")!.version, "1.2.3");
  assert.equal(agents.find((a) => a.id === "example")!.version !== undefined, true);
  writeFileSync(path.join(PATH, "gemini"), "#!/bin/sh\necho 9.9.9\n");
  const again = await c.list(true);
  assert.equal(again.agents.find((a) => a.id === "gemini")!.version, "1.2.3", "cached for the catalog's life");
});

test("agent.share (§13): on a lane whose catalog entry offers share it becomes the spec's share over the catalog's defaults; elsewhere unsupported_selector", () => {
  const c = catalogWith(binDir("gemini", "codex"));
  const g = c.resolve({ id: "gemini", share: { maxSessions: 3 } }).spec as { lane: string; share?: unknown };
  assert.equal(g.lane, "acp");
  assert.deepEqual(g.share, { maxSessions: 3 });
  assert.equal((c.resolve({ id: "gemini" }).spec as { share?: unknown }).share, undefined, "no share unless the host asks");
  throwsCode(() => c.resolve({ id: "gemini", lane: "cli", share: {} }), "unsupported_selector", /does not hold many sessions per process .*acp/);
  assert.deepEqual((c.resolve({ id: "codex", share: { idleMs: 5 } }).spec as { share?: unknown }).share, { idleMs: 5 }, "codex app-server threads share a process");
  throwsCode(() => c.resolve({ id: "codex", lane: "cli", share: {} }), "unsupported_selector", /codex.*cli lane.*offers share on: rpc/);
});
