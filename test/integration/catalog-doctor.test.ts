// `a4aa agents` and `a4aa doctor` on a machine with only a few agents (a PATH holding fakes
// that print versions): the table, the JSON, and one fix per problem.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLI } from "../helpers/sidecar.js";
import { scratchDir } from "../helpers/tmp.js";

function fakeBin(names: Record<string, string>): string {
  const d = path.join(scratchDir("a4aa-doctor"), "bin");
  mkdirSync(d);
  for (const [n, script] of Object.entries(names)) {
    writeFileSync(path.join(d, n), `#!/bin/sh\n${script}\n`);
    chmodSync(path.join(d, n), 0o755);
  }
  return d;
}

function a4aa(args: string[], env: Record<string, string>) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: "utf8", timeout: 30_000 });
  return { ...r, ms: Date.now() - t0 };
}

test("a4aa doctor: one fix per problem — not installed, version differs, credential not set (names only), hung --version", () => {
  const PATH = fakeBin({
    claude: 'echo "2.0.0 (Claude Code)"',
    gemini: "echo 0.61.0",
    qwen: "sleep 20",
  });
  const r = a4aa(["doctor"], { PATH, HOME: scratchDir("a4aa-doctor-home"), GEMINI_API_KEY: "gm-secret-value" });
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout;
  assert.match(out, /ok  claude-code .*2\.0\.0 \(tested 2\.1\.197\)/);
  assert.match(out, /problem: version 2\.0\.0; a4aa was tested with 2\.1\.197\n\s+fix:\s+it may work; to get the tested one: npm install -g @anthropic-ai\/claude-code@2\.1\.197/);
  assert.match(out, /problem: ANTHROPIC_API_KEY is not set in this shell/);
  assert.match(out, /fix:\s+export ANTHROPIC_API_KEY=…/);
  assert.doesNotMatch(out, /GEMINI_API_KEY is not set/, "a set credential is no problem");
  assert.ok(!out.includes("gm-secret-value"), "never a value");
  assert.match(out, /ok  gemini .*0\.61\.0 \(tested 0\.61\.0\)/);
  assert.match(out, /ERR qwen .*\n\s+problem: .*--version printed no version within 5 s/);
  assert.match(out, /codex\s+fix: install it: npm install -g @openai\/codex@0\.171\.0/);
  assert.match(out, /claude-agent-acp\s+fix: install it: npm install -g @agentclientprotocol\/claude-agent-acp@0\.101\.0/);
  assert.match(out, /ok  example /);
  if (process.getuid?.() === 0) assert.match(out, /running as root: it refuses its bypass-permission modes unless IS_SANDBOX=1/);
  assert.ok(r.ms < 12_000, `offline and quick (${r.ms} ms)`);
});

test("a4aa agents: a table by default, agents/list's result with --json, usage errors exit 2", () => {
  const PATH = fakeBin({ opencode: "echo 1.18.33" });
  const table = a4aa(["agents"], { PATH });
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /^ID\s+NAME\s+LANES\s+INSTALLED\s+VERSION/);
  assert.match(table.stdout, new RegExp(`opencode\\s+opencode\\s+cli,acp\\s+${path.join(PATH, "opencode").replace(/[/.]/g, "\\$&")}\\s+tested 1\\.18\\.33`));
  const json = a4aa(["agents", "--json", "--probe"], { PATH });
  const doc = JSON.parse(json.stdout);
  const oc = doc.agents.find((a: { id: string }) => a.id === "opencode");
  assert.equal(oc.version, "1.18.33");
  assert.equal(oc.installed, true);
  // R-SHARE-1: which lanes can share one process is part of the catalog (a `*` in the table).
  assert.match(table.stdout, /^gemini\s+Gemini CLI\s+acp\*,cli\s/m);
  assert.match(table.stdout, /^\* the lane can hold many sessions on one agent process/m);
  const gemini = doc.agents.find((a: { id: string }) => a.id === "gemini");
  assert.deepEqual(gemini.lanes.find((l: { lane: string }) => l.lane === "acp").share, {});
  assert.equal(gemini.lanes.find((l: { lane: string }) => l.lane === "cli").share, undefined);
  const bad = a4aa(["agents", "--jsn"], { PATH });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--jsn/);
});
