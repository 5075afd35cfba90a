#!/usr/bin/env node
// The a4aa.v1 conformance suite: runs every check against an implementation over its
// stdio and prints failures (requirement, wire transcript, stderr tail), the coverage
// table and `N passed, N failed`. Exit 0 only when every mandatory requirement passes.
//
//   node dist/test/conformance/main.js [--server "<command>"] [--only ID[,ID…]]… [--list]
//        [--json FILE] [--jobs N]
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { REQUIREMENTS, REQUIREMENT_IDS, idsIn, type Requirement } from "./registry.js";
import { CHECKS } from "./checks/index.js";
import { runAll, type CheckResult } from "./harness/runner.js";
import { formatFailure, formatTable, judge } from "./harness/report.js";
import { liveWires, splitCommand } from "./harness/wire.js";
import { liveMarkers } from "./harness/context.js";
import { killMarked } from "./harness/procs.js";

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_SERVER = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.resolve(here, "../../src/cli/main.js"))} serve`;

const USAGE = `Usage: conformance [--server "<command>"] [--only ID[,ID…]]… [--list] [--json FILE] [--jobs N]

  --server CMD   the implementation to judge, run without a shell (default: this package's
                 a4aa serve). Checks append only flags the spec defines (--trust-host-env,
                 --permission-timeout MS, --log-level LEVEL, --record DIR, --registry FILE).
  --only ID      run only the checks covering requirement ID (or the check named ID, or
                 every check whose name starts with ID); repeatable, comma-separated
  --list         list requirements (id, tier, checks) and exit
  --json FILE    write a JSON report (requirements, checks, transcripts) to FILE
  --jobs N       checks run in parallel (default 4; heavy checks always run alone)
`;

interface Options {
  server: string;
  only: string[];
  list: boolean;
  json: string | null;
  jobs: number;
}

function parse(argv: string[]): Options {
  const o: Options = { server: DEFAULT_SERVER, only: [], list: false, json: null, jobs: 4 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--server") o.server = value();
    else if (a === "--only") o.only.push(...value().split(",").map((s) => s.trim()).filter(Boolean));
    else if (a === "--list") o.list = true;
    else if (a === "--json") o.json = value();
    else if (a === "--jobs") {
      o.jobs = Number(value());
      if (!Number.isInteger(o.jobs) || o.jobs < 1) throw new Error("--jobs needs a positive integer");
    }
    else if (a === "--help" || a === "-h") {
      process.stdout.write(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

/** Problems of the suite itself: checks naming unknown requirements, mandatory ones without a check. */
export function suiteProblems(): string[] {
  const out: string[] = [];
  for (const c of CHECKS) {
    for (const id of c.covers) if (!REQUIREMENT_IDS.has(id)) out.push(`check ${c.id} covers unknown requirement ${id}`);
    const named = idsIn(`${c.id} ${c.title}`);
    if (!c.covers.some((id) => named.includes(id))) out.push(`check ${c.id}: its name must carry a requirement id it covers`);
  }
  const ids = new Set<string>();
  for (const c of CHECKS) {
    if (ids.has(c.id)) out.push(`duplicate check id ${c.id}`);
    ids.add(c.id);
  }
  for (const r of REQUIREMENTS) {
    if (r.tier === "mandatory" && !CHECKS.some((c) => c.covers.includes(r.id))) out.push(`mandatory requirement ${r.id} has no check`);
  }
  return out;
}

function select(only: string[]): { reqs: Requirement[]; checks: typeof CHECKS } {
  if (!only.length) return { reqs: REQUIREMENTS, checks: CHECKS };
  const unknown = only.filter((o) => !REQUIREMENT_IDS.has(o) && !CHECKS.some((c) => c.id === o || c.id.startsWith(o)));
  if (unknown.length) throw new Error(`--only: nothing matches ${unknown.join(", ")}`);
  const checks = CHECKS.filter((c) => only.some((o) => c.covers.includes(o) || c.id === o || c.id.startsWith(o)));
  const reqIds = new Set(only.filter((o) => REQUIREMENT_IDS.has(o)));
  // A check selected by name reports on every requirement it covers.
  for (const c of checks) if (!c.covers.some((id) => only.includes(id))) c.covers.forEach((id) => reqIds.add(id));
  return { reqs: REQUIREMENTS.filter((r) => reqIds.has(r.id)), checks };
}

async function main(): Promise<number> {
  const o = parse(process.argv.slice(2));
  const problems = suiteProblems();
  if (o.list) {
    for (const r of REQUIREMENTS) {
      const cs = CHECKS.filter((c) => c.covers.includes(r.id));
      process.stdout.write(`${r.id.padEnd(11)} ${r.tier.padEnd(10)} ${r.text}\n${cs.map((c) => `    ${c.id} — ${c.title}\n`).join("")}`);
    }
    for (const p of problems) process.stdout.write(`SUITE PROBLEM: ${p}\n`);
    process.stdout.write(`${REQUIREMENTS.length} requirements, ${CHECKS.length} checks\n`);
    return problems.length ? 1 : 0;
  }
  const { reqs, checks } = select(o.only);
  const argv = splitCommand(o.server);
  const t0 = Date.now();
  process.stdout.write(`a4aa.v1 conformance: ${checks.length} checks for ${reqs.length} requirements against: ${o.server}\n`);
  const byId = new Map(REQUIREMENTS.map((r) => [r.id, r]));
  const results: CheckResult[] = await runAll(checks, argv, o.jobs, (r) => {
    const mark = r.status === "pass" ? "✓" : r.status === "fail" ? "✗" : "–";
    process.stdout.write(`${mark} ${r.id} (${r.ms} ms)${r.status === "skip" ? ` n/a: ${r.error}` : ""}\n`);
  });
  const failures = results.filter((r) => r.status === "fail");
  if (failures.length) {
    process.stdout.write(`\n${"=".repeat(30)} FAILURES ${"=".repeat(30)}\n\n`);
    for (const f of failures) process.stdout.write(`${formatFailure(f, byId)}\n\n`);
  }
  const all = new Map(CHECKS.map((c) => [c.id, c.covers]));
  const reports = judge(reqs, results, all);
  process.stdout.write(`\n${formatTable(reports)}\n\n`);
  for (const p of problems) process.stdout.write(`SUITE PROBLEM: ${p}\n`);
  const count = (s: string) => results.filter((r) => r.status === s).length;
  const passed = reports.filter((r) => r.result === "pass").length;
  const failed = reports.filter((r) => r.result === "fail" || (r.result === "uncovered" && r.tier === "mandatory")).length;
  const mandatoryBad = reports.filter((r) => r.tier === "mandatory" && r.result !== "pass").length + problems.length;
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  process.stdout.write(
    `checks: ${count("pass")} passed, ${count("fail")} failed, ${count("skip")} n/a; requirements: ${reports.filter((r) => r.result === "n/a").length} n/a, ${reports.filter((r) => r.result === "warn").length} advisory warnings; ${secs} s\n`,
  );
  if (o.json) {
    const report = { server: o.server, durationMs: Date.now() - t0, problems, requirements: reports, checks: results };
    writeFileSync(o.json, JSON.stringify(report, null, 2));
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return mandatoryBad ? 1 : 0;
}

// A check that failed or timed out may leave promises of its own behind.
process.on("unhandledRejection", () => undefined);
// An interrupted run ends what it started.
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    for (const w of liveWires) w.destroy();
    for (const m of liveMarkers) killMarked(m);
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`conformance: ${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  },
);
