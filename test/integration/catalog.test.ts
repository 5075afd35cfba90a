// The agents catalog through a real `a4aa serve` (spec §10): agents/list, session/open
// {agent} with the bundled example agent, each refusal before anything starts, and
// --registry files (good, colliding, malformed).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLI, EXAMPLE_AGENT, TestSidecar, killMarked, newMarker, waitNoProcesses } from "../helpers/sidecar.js";
import { scratchDir } from "../helpers/tmp.js";
import { platformKey } from "../../src/catalog/acp-registry.js";

const started: TestSidecar[] = [];
const markers: string[] = [];
after(() => {
  for (const s of started) s.kill();
  for (const m of markers) killMarked(m);
});

/** A PATH holding only the named fake programs (each prints a version). */
function fakeBin(names: Record<string, string>): string {
  const d = path.join(scratchDir("a4aa-catalog-int"), "bin");
  mkdirSync(d);
  for (const [n, v] of Object.entries(names)) {
    writeFileSync(path.join(d, n), `#!/bin/sh\necho "${v}"\n`);
    chmodSync(path.join(d, n), 0o755);
  }
  return d;
}

function sidecar(PATH: string, args: string[] = [], onPermission?: (p: any) => any): TestSidecar {
  const s = new TestSidecar({ args, env: { PATH, HOME: process.env.HOME, SECRET_TOKEN: "do-not-leak" }, onPermission });
  started.push(s);
  return s;
}

const errData = (m: { error?: { data?: any } }) => m.error?.data;

test("agents/list: the catalog with what is installed on the sidecar's PATH; probe reads versions", async () => {
  const PATH = fakeBin({ claude: "2.0.1 (Claude Code)", gemini: "0.61.0" });
  const s = sidecar(PATH);
  const { agents } = await s.ok("agents/list", {});
  const by = Object.fromEntries(agents.map((a: any) => [a.id, a]));
  assert.ok(agents.length >= 20);
  assert.equal(by["claude-code"].installed, true);
  assert.equal(by["claude-code"].path, path.join(PATH, "claude"));
  assert.equal(by["claude-code"].version, undefined);
  assert.equal(by.codex.installed, false);
  assert.equal(by.example.installed, true);
  const probed = await s.ok("agents/list", { probe: true });
  const p = Object.fromEntries(probed.agents.map((a: any) => [a.id, a]));
  assert.equal(p["claude-code"].version, "2.0.1");
  assert.equal(p["claude-code"].testedVersion, "2.1.197");
  assert.equal(p.gemini.version, "0.61.0");
  const bad = await s.call("agents/list", { probe: "yes" });
  assert.equal(errData(bad).code, "invalid_params");
  assert.equal(await s.end(), 0);
});

test("R-AGENT-1: {agent: {id: example}} opens the bundled agent; the result's spec is what runs, credentials redacted", async () => {
  const marker = newMarker();
  markers.push(marker);
  const s = sidecar(fakeBin({}), [], () => ({ result: { selected: "allow" } }));
  const open = await s.ok("session/open", { agent: { id: "example", set: { A4AA_TEST_MARKER: marker } } });
  assert.equal(open.spec.lane, "acp");
  assert.equal(open.spec.command.program, process.execPath);
  assert.equal(open.spec.command.env.policy, "sanitized");
  assert.equal(open.spec.command.env.set.A4AA_TEST_MARKER, marker);
  assert.equal(open.agentInfo.name.length > 0, true);
  const out = await s.ok("session/prompt", { sessionId: open.sessionId, text: "Summarize the project" });
  assert.equal(out.stopReason, "endTurn");
  const evs = s.events(open.sessionId);
  assert.ok(evs.some((e) => e.type === "permissionResolved" && e.decidedBy === "host"), "the permission was relayed to the host");
  await s.ok("session/close", { sessionId: open.sessionId });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker, 5000), []);
});

test("R-AGENT-2/3: unknown id, missing lane, not-installed program, undeclared credential, spec and agent both: typed errors, nothing spawned", async () => {
  const s = sidecar(fakeBin({ codex: "codex-cli 0.171.0" }));
  const unknown = errData(await s.call("session/open", { agent: { id: "no-such-agent" } }));
  assert.equal(unknown.code, "unknown_agent");
  assert.equal(unknown.stage, "open");
  assert.match(unknown.detail, /known ids: example, claude-code/);
  const lane = errData(await s.call("session/open", { agent: { id: "codex", lane: "acp" } }));
  assert.equal(lane.code, "unsupported_selector");
  const missing = errData(await s.call("session/open", { agent: { id: "claude-code" } }));
  assert.equal(missing.code, "spawn_failed");
  assert.match(missing.detail, /npm install -g @anthropic-ai\/claude-code@2\.1\.197/);
  const cred = errData(await s.call("session/open", { agent: { id: "example", credentials: { ANTHROPIC_API_KEY: "k" } } }));
  assert.equal(cred.code, "env_refused");
  assert.match(cred.detail, /ANTHROPIC_API_KEY is not a credential variable of "example"/);
  const inherit = errData(await s.call("session/open", { agent: { id: "example", inherit: ["SECRET_TOKEN"] } }));
  assert.equal(inherit.code, "env_refused", "agent.inherit is confined to the allowlist (R-ENV-1)");
  const both = errData(await s.call("session/open", { agent: { id: "example" }, spec: { id: "x", lane: "acp", command: { program: "x", args: [], env: { policy: "sanitized" } } } }));
  assert.equal(both.code, "invalid_params");
  const neither = errData(await s.call("session/open", {}));
  assert.equal(neither.code, "invalid_params");
  const typo = errData(await s.call("session/open", { agent: { id: "example", credential: {} } }));
  assert.equal(typo.code, "invalid_params");
  assert.equal(await s.end(), 0);
});

function registry(doc: unknown): string {
  const f = path.join(scratchDir("a4aa-registry-int"), "registry.json");
  writeFileSync(f, JSON.stringify(doc));
  return f;
}

test("R-AGENT-4: --registry adds an ACP registry's agents: a binary on PATH opens, npx is listed, a built-in id wins", async () => {
  const PATH = fakeBin({});
  // The registry's binary: a tiny launcher of the bundled example agent, on the sidecar's PATH.
  writeFileSync(path.join(PATH, "my-acp-agent"), `#!/bin/sh\nexec "${process.execPath}" "${EXAMPLE_AGENT}" "$@"\n`);
  chmodSync(path.join(PATH, "my-acp-agent"), 0o755);
  const f = registry({
    version: "1.0.0",
    agents: [
      { id: "my-agent", name: "Mine", version: "0.3.0", description: "a registry agent", distribution: { binary: { [platformKey()]: { archive: "https://example.invalid/a.tgz", cmd: "./my-acp-agent", env: { MY_AGENT_MODE: "headless" } } } } },
      { id: "npx-agent", name: "Npx", version: "2.0.0", description: "via npx", distribution: { npx: { package: "@someone/acp-agent", args: ["--acp"] } } },
      { id: "gemini", name: "Not Gemini", version: "9.9.9", description: "collides", distribution: { npx: { package: "fake-gemini" } } },
    ],
  });
  const marker = newMarker();
  markers.push(marker);
  const s = sidecar(PATH, ["--registry", f], () => ({ result: { selected: "allow" } }));
  const { agents } = await s.ok("agents/list", {});
  const by = Object.fromEntries(agents.map((a: any) => [a.id, a]));
  assert.equal(by["my-agent"].source, f);
  assert.equal(by["my-agent"].installed, true);
  assert.deepEqual(by["npx-agent"].lanes[0], { lane: "acp", program: "npx", args: ["--yes", "@someone/acp-agent@2.0.0", "--acp"] });
  assert.equal(by.gemini.source, "builtin", "the built-in entry is kept");
  await s.stderrMatch(/"gemini" is already in the catalog/);
  const open = await s.ok("session/open", { agent: { id: "my-agent", set: { A4AA_TEST_MARKER: marker } } });
  assert.equal(open.spec.command.program, path.join(PATH, "my-acp-agent"));
  assert.equal(open.spec.command.env.set.MY_AGENT_MODE, "headless", "the distribution's env became set literals");
  const out = await s.ok("session/prompt", { sessionId: open.sessionId, text: "/echo registry works" });
  assert.match(out.text, /registry works/);
  await s.ok("session/close", { sessionId: open.sessionId });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker, 5000), []);
});

test("R-AGENT-4: a malformed registry file stops serve at start, naming the file and the field", () => {
  const f = registry({ version: "1", agents: [{ id: "a", name: "A", version: "1", description: "d", distribution: { npx: {} } }] });
  const r = spawnSync(process.execPath, [CLI, "serve", "--registry", f], { input: "", encoding: "utf8", timeout: 20_000 });
  assert.equal(r.status, 2);
  assert.ok(r.stderr.includes(f), r.stderr);
  assert.match(r.stderr, /agents\[0\]\.distribution\.npx\.package/);
  assert.equal(r.stdout, "", "nothing on stdout");
});
