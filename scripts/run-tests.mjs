#!/usr/bin/env node
// Runs node's test runner on the compiled tests (*.test.js) under the given folders or
// files, e.g. `node scripts/run-tests.mjs test/unit test/agents/mocks.test.ts`. Paths are
// source paths; the compiled files live under dist/. Flags (--test-name-pattern=…) pass through.
// Unless a real agent's suite is among them, the sidecars the tests start cap their stop
// graces at 300 ms (A4AA_TEST_GRACE_MS, read by src/supervise/supervised-process.ts): a fake
// agent that ignores EOF or SIGTERM then costs a moment, not seconds. Set it to change that.
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const args = process.argv.slice(2);
const dirs = args.filter((a) => !a.startsWith("--"));
const passthrough = args.filter((a) => a.startsWith("--"));

function collect(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith(".test.js")) out.push(p);
  }
  return out;
}

const files = [];
for (const d of dirs.length ? dirs : ["test/unit", "test/integration"]) {
  // A source path (folder or one .test.ts file); the compiled twin lives under dist/.
  const compiled = path.join(root, "dist", d.replace(/\.ts$/, ".js"));
  if (!existsSync(compiled)) {
    console.error(`run-tests: ${compiled} does not exist (run npm run build first)`);
    process.exit(1);
  }
  if (statSync(compiled).isDirectory()) collect(compiled, files);
  else files.push(compiled);
}
if (!files.length) {
  console.error("run-tests: no test files found");
  process.exit(1);
}
// Markers of this run start with its id, so that another run on the same machine (a second
// checkout's tests) is never taken for this one's leftovers.
const run = process.env.A4AA_TEST_RUN || `r${randomBytes(4).toString("hex")}`;
const realAgents = files.some((f) => /[/\\]test[/\\](real|agents)[/\\]/.test(f));
const grace = process.env.A4AA_TEST_GRACE_MS ?? (realAgents ? undefined : "300");
// npm test's files wait on processes and timers more than they compute: three at a time on
// two cores (about 97 s instead of 120 here). The heavier suites (real agents, floods) two.
const quick = files.every((f) => /[/\\]test[/\\](unit|integration)[/\\]/.test(f));
const concurrency = process.env.A4AA_TEST_CONCURRENCY ?? (quick ? 3 : 2);
const hasReporter = passthrough.some((a) => a.startsWith("--test-reporter"));
const r = spawnSync(
  process.execPath,
  [
    "--test",
    `--test-concurrency=${concurrency}`,
    "--test-timeout=120000",
    // The spec reporter, and the slowest files at the end (scripts/test-times.mjs).
    ...(hasReporter
      ? []
      : ["--test-reporter=spec", "--test-reporter-destination=stdout", `--test-reporter=${path.join(root, "scripts/test-times.mjs")}`, "--test-reporter-destination=stdout"]),
    ...passthrough,
    ...files,
  ],
  { stdio: "inherit", cwd: root, env: { ...process.env, A4AA_TEST_RUN: run, ...(grace ? { A4AA_TEST_GRACE_MS: grace } : {}) } },
);
// Every test tags the processes it starts (an A4AA_*_MARKER variable in their environment);
// after the whole run none may be left, whichever test started it.
function leftovers() {
  const out = [];
  if (process.platform !== "linux") return out;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      const env = readFileSync(`/proc/${name}/environ`, "latin1");
      if (new RegExp(`(^|\\0)A4AA_(TEST|CONFORMANCE)_MARKER=[mc]${run}`).test(env)) {
        out.push(`${name} ${readFileSync(`/proc/${name}/cmdline`, "latin1").replace(/\0/g, " ").trim()}`);
      }
    } catch {
      // gone, or not ours
    }
  }
  return out;
}
let left = leftovers();
for (let i = 0; i < 20 && left.length; i++) {
  spawnSync("sleep", ["0.25"]);
  left = leftovers();
}
if (left.length) {
  console.error(`\nrun-tests: ${left.length} process(es) started by the tests are still running:\n  ${left.join("\n  ")}`);
  process.exit(r.status || 1);
}
process.exit(r.status ?? 1);
