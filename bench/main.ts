// `npm run bench [-- --quick] [-- --only ping,streaming] [-- --cpu-prof]`: measures a4aa serve
// side by side with its baselines, in one run, and prints a markdown table of figures,
// baselines and ratios; the whole result goes to bench/results/*.json.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { allowStarts, killAll, markedPids, refuseStarts, ROOT, sidecarNodeFlags, withTimeout } from "./lib/proc.js";
import { markdownTable, type SuiteResult } from "./lib/report.js";
import type { SuiteContext } from "./suites/context.js";
import { coldStartSuite } from "./suites/coldstart.js";
import { custodySuite } from "./suites/custody.js";
import { concurrencySuite } from "./suites/concurrency.js";
import { firstMinuteSuite } from "./suites/firstminute.js";
import { fleetSuite } from "./suites/fleet.js";
import { framesSuite } from "./suites/frames.js";
import { guardSuite } from "./suites/guard.js";
import { journalSuite } from "./suites/journal.js";
import { otelSuite } from "./suites/otel.js";
import { remoteSuite } from "./suites/remote.js";
import { pingSuite } from "./suites/ping.js";
import { sandboxSuite } from "./suites/sandbox.js";
import { shareSuite } from "./suites/share.js";
import { streamingSuite } from "./suites/streaming.js";

// Time bounds against hangs (a loaded machine can take several times the usual time;
// the usual: quick ~25 s in all, full ~140 s).
const SUITES = {
  ping: { run: pingSuite, quickMs: 60_000, fullMs: 180_000 },
  streaming: { run: streamingSuite, quickMs: 60_000, fullMs: 240_000 },
  frames: { run: framesSuite, quickMs: 60_000, fullMs: 240_000 },
  concurrency: { run: concurrencySuite, quickMs: 90_000, fullMs: 480_000 },
  coldstart: { run: coldStartSuite, quickMs: 60_000, fullMs: 120_000 },
  guard: { run: guardSuite, quickMs: 60_000, fullMs: 120_000 },
  journal: { run: journalSuite, quickMs: 60_000, fullMs: 240_000 },
  share: { run: shareSuite, quickMs: 60_000, fullMs: 240_000 },
  otel: { run: otelSuite, quickMs: 60_000, fullMs: 180_000 },
  custody: { run: custodySuite, quickMs: 60_000, fullMs: 120_000 },
  // --real only: a4aa run and acpx each start the real gemini (≈ 3–8 s a round).
  firstminute: { run: firstMinuteSuite, quickMs: 120_000, fullMs: 300_000 },
  fleet: { run: fleetSuite, quickMs: 60_000, fullMs: 360_000 },
  remote: { run: remoteSuite, quickMs: 60_000, fullMs: 240_000 },
  sandbox: { run: sandboxSuite, quickMs: 60_000, fullMs: 180_000 },
} as const;
type SuiteName = keyof typeof SUITES;

const USAGE = `usage: npm run bench -- [--quick] [--only ${Object.keys(SUITES).join(",")}] [--real] [--cpu-prof]
  --quick     small sizes (CI smoke run, under 30 s)
  --real      also measure real agents (test/agents, against their loopback mocks): share's
              open latencies with gemini --acp, and firstminute: a4aa run --agent gemini
              against acpx on the same agent (needs npm run agents:install)
  --only      run these suites only
  --cpu-prof  run every a4aa serve under node --cpu-prof (profiles in bench/results/prof/)`;

function parse(argv: string[]): { quick: boolean; only: SuiteName[]; cpuProf: boolean; real: boolean } {
  let quick = false;
  let real = false;
  let cpuProf = false;
  let only = Object.keys(SUITES) as SuiteName[];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--quick") quick = true;
    else if (a === "--real") real = true;
    else if (a === "--cpu-prof") cpuProf = true;
    else if (a === "--only" || a.startsWith("--only=")) {
      const v = a === "--only" ? argv[++i] : a.slice(7);
      only = (v ?? "").split(",").filter(Boolean) as SuiteName[];
      const bad = only.filter((s) => !(s in SUITES));
      if (bad.length || !only.length) throw new Error(`unknown suite ${bad.join(",") || "(none)"}\n${USAGE}`);
    } else if (a === "--help" || a === "-h") {
      process.stdout.write(USAGE + "\n");
      process.exit(0);
    } else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  return { quick, only, cpuProf, real };
}

async function main(): Promise<number> {
  const opts = parse(process.argv.slice(2));
  const resultsDir = `${ROOT}bench/results`;
  mkdirSync(resultsDir, { recursive: true });
  if (opts.cpuProf) {
    mkdirSync(`${resultsDir}/prof`, { recursive: true });
    sidecarNodeFlags.push("--cpu-prof", `--cpu-prof-dir=${resultsDir}/prof`);
  }
  const started = Date.now();
  const ctx: SuiteContext = { quick: opts.quick, real: opts.real, log: (l) => process.stderr.write(l + "\n") };
  ctx.log(`a4aa bench${opts.quick ? " --quick" : ""}: ${opts.only.join(", ")} (node ${process.version}, ${os.cpus().length} cores)`);
  const results: SuiteResult[] = [];
  for (const name of opts.only) {
    const s = SUITES[name];
    const t0 = Date.now();
    ctx.log(`${name}…`);
    allowStarts();
    const running = s.run(ctx);
    try {
      // Real agents start in seconds, not milliseconds.
      const r = await withTimeout(running, (opts.quick ? s.quickMs : s.fullMs) + (opts.real ? 180_000 : 0), name);
      results.push({ name, ...r, seconds: (Date.now() - t0) / 1000 });
    } catch (e) {
      ctx.log(`  ${name} failed: ${(e as Error).stack ?? e}`);
      // Stop it for good: no new process, the live ones killed (their calls then fail).
      refuseStarts(e as Error);
      killAll();
      await withTimeout(running, 10_000, `${name} winding down`).catch(() => undefined);
      results.push({ name, rows: [], details: {}, error: (e as Error).message ?? String(e), seconds: (Date.now() - t0) / 1000 });
    }
    // Whatever a suite left behind (a timeout mid-run) does not leak into the next one.
    const left = killAll();
    if (left) ctx.log(`  killed ${left} leftover process(es)`);
    ctx.log(`  ${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const seconds = (Date.now() - started) / 1000;
  const table = markdownTable(results);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = `${resultsDir}/bench-${opts.quick ? "quick-" : ""}${stamp}.json`;
  const json = {
    date: new Date().toISOString(),
    quick: opts.quick,
    seconds,
    node: process.version,
    cpus: os.cpus().length,
    loadavg: os.loadavg(),
    suites: results,
    table,
  };
  writeFileSync(file, JSON.stringify(json, null, 2) + "\n");
  writeFileSync(`${resultsDir}/latest${opts.quick ? "-quick" : ""}.json`, JSON.stringify(json, null, 2) + "\n");
  process.stdout.write(`${table}\n\nRatios are cost ratios (a4aa ÷ baseline; throughput inverted): below 1 a4aa is cheaper.\n`);
  process.stdout.write(`${results.length} suites in ${seconds.toFixed(1)} s; results in ${file}\n`);
  return results.some((r) => r.error) ? 1 : 0;
}

const bail = (sig: NodeJS.Signals) => {
  killAll();
  process.stderr.write(`bench: ${sig}; every started process was killed\n`);
  process.exit(130);
};
process.once("SIGINT", bail);
process.once("SIGTERM", bail);

main().then(
  (code) => {
    killAll();
    if (markedPids().length) process.stderr.write("bench: some processes survived the final kill\n");
    process.exit(code);
  },
  (e: unknown) => {
    killAll();
    process.stderr.write(`bench: ${(e as Error).message ?? e}\n`);
    process.exit(2);
  },
);
