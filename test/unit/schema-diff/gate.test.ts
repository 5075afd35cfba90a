// The versioning rule (versioning.ts) and the gate on a real git history.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseModel as parseDocument } from "../../../src/openrpc/model.js";
import { bumpBetween, changelogEntries, judgeGate, parseSemver } from "../../../src/schema-diff/versioning.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const BASE = readFileSync(path.join(root, "schema/a4aa.v1.openrpc.json"), "utf8");
type Doc = { info: { version: string }; components: { schemas: Record<string, any> }; [k: string]: any };

function variant(version: string, change?: (d: Doc) => void): string {
  const d = JSON.parse(BASE) as Doc;
  d.info.version = version;
  change?.(d);
  return JSON.stringify(d, null, 2);
}
const doc = (text: string, label = "doc") => parseDocument(text, label);
const LOG = "# Changelog\n\n## 1.1.0\n\n- Added things.\n\n## 1.0.0\n\nFirst release.\n";
const addOptional = (d: Doc) => (d.components.schemas.TurnOutcome.properties.durationMs = { type: "integer" });
const removeEffort = (d: Doc) => d.components.schemas.Effort.enum.pop();

const GATE_CASES: { name: string; old: string | null; new: string; changelog?: string | null; ok: boolean; problem?: RegExp }[] = [
  { name: "no change", old: variant("1.0.0"), new: variant("1.0.0"), ok: true },
  { name: "text-only change needs no bump", old: variant("1.0.0"), new: variant("1.0.0", (d) => (d.components.schemas.Effort.description = "x")), ok: true },
  { name: "compatible change without a bump", old: variant("1.0.0"), new: variant("1.0.0", addOptional), ok: false, problem: /minor version bump: set info.version to 1.1.0/ },
  { name: "compatible change with a minor bump and an entry", old: variant("1.0.0"), new: variant("1.1.0", addOptional), ok: true },
  { name: "patch bump is not enough for a wire change", old: variant("1.0.0"), new: variant("1.0.1", addOptional), changelog: "## 1.0.1\n\nx\n", ok: false, problem: /minor version bump/ },
  { name: "bump without a changelog entry", old: variant("1.0.0"), new: variant("1.1.0", addOptional), changelog: "## 1.0.0\n\nFirst.\n", ok: false, problem: /no "## 1.1.0" entry/ },
  { name: "bump with an empty changelog entry", old: variant("1.0.0"), new: variant("1.1.0", addOptional), changelog: "## 1.1.0\n\n## 1.0.0\n\nFirst.\n", ok: false, problem: /entry is empty/ },
  { name: "bump without any changelog", old: variant("1.0.0"), new: variant("1.1.0", addOptional), changelog: null, ok: false, problem: /CHANGELOG.md is missing/ },
  { name: "breaking change with a minor bump", old: variant("1.0.0"), new: variant("1.1.0", removeEffort), ok: false, problem: /break hosts: a4aa.v1 cannot take them/ },
  { name: "breaking change with a major bump inside a4aa.v1", old: variant("1.0.0"), new: variant("2.0.0", removeEffort), changelog: "## 2.0.0\n\nx\n", ok: false, problem: /major must be 1/ },
  {
    name: "breaking change to an experimental element with a minor bump",
    old: variant("1.0.0", (d) => (d.components.schemas.Effort["x-experimental"] = true)),
    new: variant("1.1.0", (d) => {
      d.components.schemas.Effort["x-experimental"] = true;
      removeEffort(d);
    }),
    ok: true,
  },
  { name: "version went down", old: variant("1.1.0"), new: variant("1.0.0"), ok: false, problem: /went down/ },
  { name: "version is not semver", old: variant("1.0.0"), new: variant("1.1"), ok: false, problem: /not a semver/ },
  { name: "document added with an entry", old: null, new: variant("1.0.0"), ok: true },
  { name: "document added without an entry", old: null, new: variant("1.2.0"), ok: false, problem: /no "## 1.2.0" entry/ },
];

for (const c of GATE_CASES) {
  test(`gate: ${c.name}`, () => {
    const g = judgeGate({ old: c.old === null ? null : doc(c.old, "old"), new: doc(c.new, "new"), changelog: c.changelog === undefined ? LOG : c.changelog });
    assert.equal(g.ok, c.ok, g.problems.join("\n"));
    if (c.problem) assert.match(g.problems.join("\n"), c.problem);
  });
}

test("semver bumps", () => {
  const b = (x: string, y: string) => bumpBetween(parseSemver(x)!, parseSemver(y)!);
  assert.equal(b("1.0.0", "1.0.0"), "none");
  assert.equal(b("1.0.0", "1.0.1"), "patch");
  assert.equal(b("1.0.3", "1.1.0"), "minor");
  assert.equal(b("1.4.0", "2.0.0"), "major");
  assert.equal(b("1.4.0", "1.3.9"), "downgrade");
  assert.equal(parseSemver("1.0"), undefined);
});

test("changelog headings", () => {
  const e = changelogEntries("# Log\n\n## [1.2.0] - 2025-01-01\n\nA\n\n## v1.1.0\nB\n## 1.0.0 — first\nC\n");
  assert.deepEqual([...e.keys()], ["1.2.0", "1.1.0", "1.0.0"]);
  assert.equal(e.get("1.1.0")!.trim(), "B");
});

// The gate as CI runs it, on a throwaway repository with a short history.
function sh(cwd: string, cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
const gate = path.join(root, "dist/src/schema-diff/gate.js");
const gitDiff = path.join(root, "dist/src/schema-diff/git-diff.js");

test("gate on a git history: first commit, a good bump, a bad change, branches", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "a4aa-gate-"));
  try {
    const git = (...args: string[]) => {
      const r = sh(dir, "git", args);
      assert.equal(r.code, 0, r.out);
      return r.out;
    };
    const write = (schema: string, log?: string) => {
      mkdirSync(path.join(dir, "schema"), { recursive: true });
      writeFileSync(path.join(dir, "schema/a4aa.v1.openrpc.json"), schema);
      if (log !== undefined) writeFileSync(path.join(dir, "schema/CHANGELOG.md"), log);
    };
    const commit = (msg: string) => {
      git("add", "-A");
      git("commit", "-qm", msg);
    };
    git("init", "-q", "-b", "main");
    write(variant("1.0.0"));
    commit("first: no changelog yet");
    let r = sh(dir, process.execPath, [gate]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /document added at version 1\.0\.0\n  FAIL: schema\/CHANGELOG.md is missing/);

    write(variant("1.1.0", addOptional), "## 1.1.0\n\nTurnOutcome.durationMs.\n\n## 1.0.0\n\nFirst.\n");
    commit("compatible change, bumped");
    r = sh(dir, process.execPath, [gate]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /field-added-optional +TurnOutcome\.durationMs/);

    // Uncommitted breaking change on main: judged against HEAD~1 together with the last commit.
    write(variant("1.1.0", (d) => (addOptional(d), removeEffort(d))));
    r = sh(dir, process.execPath, [gate]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /BREAKING hosts +enum-value-removed +Effort: value "xhigh" removed/);
    r = sh(dir, process.execPath, [gitDiff, "HEAD", "--json"]);
    assert.equal(r.code, 0, r.out);
    assert.equal(JSON.parse(r.out).bump, "major");

    // On a branch the base is the merge-base with main, however many commits the branch has.
    git("checkout", "-q", "-b", "feature");
    commit("breaking change on a branch");
    write(variant("1.1.0", (d) => (addOptional(d), removeEffort(d), (d.components.schemas.Usage.properties.x = { type: "string" }))));
    commit("one more");
    r = sh(dir, process.execPath, [gate]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /merge-base of HEAD and main/);
    assert.match(r.out, /enum-value-removed/);

    r = sh(dir, process.execPath, [gate, "--history", "--brief"]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /commit \w{7} first: no changelog yet\n  note: document added at version 1\.0\.0\n  note: changelog check skipped/);
    assert.match(r.out, /4 commit\(s\) judged: failed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a4aa schema diff OLD NEW", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "a4aa-diff-"));
  try {
    writeFileSync(path.join(dir, "old.json"), variant("1.0.0"));
    writeFileSync(path.join(dir, "new.json"), variant("1.1.0", removeEffort));
    const cli = path.join(root, "dist/src/cli/main.js");
    let r = sh(dir, process.execPath, [cli, "schema", "diff", "old.json", "new.json"]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /old\.json \(1\.0\.0\) → new\.json \(1\.1\.0\)/);
    assert.match(r.out, /BREAKING hosts +enum-value-removed +Effort/);
    assert.match(r.out, /in: session\/open params \(host writes\), session\/prompt params \(host writes\)/);
    r = sh(dir, process.execPath, [cli, "schema", "diff", "old.json", "new.json", "--exit-code"]);
    assert.equal(r.code, 1, r.out);
    r = sh(dir, process.execPath, [cli, "schema", "diff", "old.json"]);
    assert.equal(r.code, 2, r.out);
    r = sh(dir, process.execPath, [cli, "schema"]);
    assert.equal(r.code, 0, r.out);
    assert.equal(JSON.parse(r.out)["x-protocol"], "a4aa.v1");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("gate on main: every change of an unreleased version is judged together, against the version before it", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "a4aa-gate-"));
  try {
    const git = (...args: string[]) => assert.equal(sh(dir, "git", args).code, 0);
    const commit = (schema: string, log: string, msg: string) => {
      mkdirSync(path.join(dir, "schema"), { recursive: true });
      writeFileSync(path.join(dir, "schema/a4aa.v1.openrpc.json"), schema);
      writeFileSync(path.join(dir, "schema/CHANGELOG.md"), log);
      git("add", "-A");
      git("commit", "-qm", msg);
    };
    const addSecond = (d: Doc) => (d.components.schemas.TurnOutcome.properties.attempts = { type: "integer" });
    const log11 = "## 1.1.0\n\nTwo fields.\n\n## 1.0.0\n\nFirst.\n";
    git("init", "-q", "-b", "main");
    commit(variant("1.0.0"), "## 1.0.0\n\nFirst.\n", "1.0.0");
    commit(variant("1.1.0", addOptional), log11, "1.1.0: one field");
    commit(variant("1.1.0", (d) => (addOptional(d), addSecond(d))), log11, "1.1.0: a second field, same version");
    let r = sh(dir, process.execPath, [gate]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /the last commit at 1\.0\.0, the version before 1\.1\.0/);
    assert.match(r.out, /TurnOutcome\.durationMs/);
    assert.match(r.out, /TurnOutcome\.attempts/);
    commit(variant("1.1.0", (d) => (addOptional(d), addSecond(d), removeEffort(d))), log11, "1.1.0: a breaking change");
    r = sh(dir, process.execPath, [gate]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /enum-value-removed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
