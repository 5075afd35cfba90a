// 7. The guard (R-SUP-4) and the agent cookie (R-SUP-5): what they cost and what they buy.
// - guard start: spawn → exit after EOF on its stdin (start, one /proc scan, exit), against
//   `node -e ""` (the floor for any Node helper);
// - guard RSS once running;
// - per-spawn latency of supervise's startPipe (cookie in the env, a line to the guard,
//   /proc reads) → 'spawn' and → exit reported (the R-SUP-3 sweep included), against a bare
//   child_process.spawn of the same program;
// - a SIGKILLed sidecar with agents that ignore EOF and SIGTERM: until nothing is left.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startPipe, type PipeProcess } from "../../src/supervise/spawn.js";
import { Conn } from "../lib/ndjson.js";
import { DIST, MARKER, MARKER_ENV, markedPids, memBytes, MiB, sleep, startSidecar, track } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { nowMs, quantile } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";

const GUARD = fileURLToPath(new URL("../../src/supervise/guard-main.js", import.meta.url));
const STUBBORN_AGENT = `${DIST}test/fixtures/acp/fake-agent.js`;

async function untilExit(start: () => ReturnType<typeof track>, input?: string): Promise<number> {
  const t0 = nowMs();
  const c = start();
  if (input !== undefined) c.stdin!.end(input);
  await new Promise((r) => c.once("exit", r));
  return nowMs() - t0;
}

async function guardRss(): Promise<number> {
  const g = track({ cmd: process.execPath, args: ["--max-old-space-size=16", "--max-semi-space-size=1", GUARD, "2000"], stdio: ["pipe", "ignore", "ignore"] });
  g.stdin!.write("prefix bench-none.\n+ 1 0\n- 1\n");
  await sleep(500);
  const rss = memBytes(g.pid!, "VmRSS");
  g.stdin!.end();
  await new Promise((r) => g.once("exit", r));
  return rss;
}

async function spawnLatency(runs: number): Promise<{ bareSpawn: number[]; bareExit: number[]; supSpawn: number[]; supExit: number[] }> {
  const out = { bareSpawn: [] as number[], bareExit: [] as number[], supSpawn: [] as number[], supExit: [] as number[] };
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", [MARKER_ENV]: MARKER };
  for (let i = 0; i < runs; i++) {
    let t0 = nowMs();
    const c = spawn("/bin/true", [], { env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    await new Promise((r) => c.once("spawn", r));
    out.bareSpawn.push(nowMs() - t0);
    await new Promise((r) => c.once("close", r));
    out.bareExit.push(nowMs() - t0);
    t0 = nowMs();
    const p: PipeProcess = await startPipe({ program: "/bin/true", args: [], cwd: "/", env, name: "bench" });
    out.supSpawn.push(nowMs() - t0);
    await p.exited;
    await p.stop();
    out.supExit.push(nowMs() - t0);
  }
  return out;
}

async function killToGone(): Promise<number> {
  const side = startSidecar();
  const conn = new Conn(side.stdin!, side.stdout!);
  const env = { policy: "sanitized", inherit: ["PATH", "HOME"], set: { [MARKER_ENV]: MARKER } };
  for (let i = 0; i < 3; i++) {
    const { sessionId } = await conn.ok<{ sessionId: string }>("session/open", {
      spec: { id: "bench-stubborn", lane: "acp", command: { program: process.execPath, args: [STUBBORN_AGENT, "--stubborn"], env } },
    });
    await conn.ok("session/prompt", { sessionId, text: "grandchild" });
  }
  const before = markedPids().length;
  if (before < 9) throw new Error(`expected 3 agents with 2 grandchildren each, found ${before} processes`);
  const t0 = nowMs();
  side.kill("SIGKILL");
  while (markedPids().length && nowMs() - t0 < 15_000) await sleep(20);
  if (markedPids().length) throw new Error(`${markedPids().length} processes outlived the sidecar by 15 s`);
  return nowMs() - t0;
}

export async function guardSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const runs = ctx.quick ? 3 : 20;
  const floor: number[] = [];
  const guard: number[] = [];
  await untilExit(() => track({ cmd: process.execPath, args: ["-e", ""] }));
  for (let i = 0; i < runs; i++) {
    floor.push(await untilExit(() => track({ cmd: process.execPath, args: ["-e", ""] })));
    guard.push(await untilExit(() => track({ cmd: process.execPath, args: ["--max-old-space-size=16", "--max-semi-space-size=1", GUARD, "2000"] }), "prefix bench-none.\n"));
  }
  const rss = await guardRss();
  const lat = await spawnLatency(ctx.quick ? 10 : 100);
  const kills: number[] = [];
  for (let i = 0; i < (ctx.quick ? 1 : 3); i++) kills.push(await killToGone());
  const p50 = (xs: number[]) => quantile(xs, 0.5);
  ctx.log(`  guard start→exit p50 ${p50(guard).toFixed(1)} ms (node -e ${p50(floor).toFixed(1)} ms), RSS ${(rss / MiB).toFixed(1)} MiB`);
  ctx.log(`  spawn p50 bare ${p50(lat.bareSpawn).toFixed(2)} ms / supervised ${p50(lat.supSpawn).toFixed(2)} ms; to exit reported ${p50(lat.bareExit).toFixed(2)} / ${p50(lat.supExit).toFixed(2)} ms`);
  ctx.log(`  SIGKILLed sidecar → agents gone: ${kills.map((k) => k.toFixed(0)).join(", ")} ms`);
  const rows: Row[] = [
    row({ section: "guard", metric: `guard start → exit on EOF, p50 (${runs} runs)`, unit: "ms", value: p50(guard), baseline: p50(floor), baselineName: "node -e \"\"" }),
    row({ section: "guard", metric: "guard RSS", unit: "MiB", value: rss / MiB }),
    row({ section: "guard", metric: "agent spawn → running, p50", unit: "ms", value: p50(lat.supSpawn), baseline: p50(lat.bareSpawn), baselineName: "bare child_process.spawn" }),
    row({ section: "guard", metric: "agent spawn → exit reported (R-SUP-3 sweep), p50", unit: "ms", value: p50(lat.supExit), baseline: p50(lat.bareExit), baselineName: "bare child_process.spawn" }),
    row({ section: "guard", metric: "SIGKILLed sidecar → stubborn agents gone, max", unit: "ms", value: Math.max(...kills), baseline: 5000, baselineName: "R-SUP-4 bound", target: { max: 1, text: "≤ 5 s" } }),
  ];
  return { rows, details: { floorMs: floor, guardMs: guard, rssBytes: rss, latency: lat, killMs: kills } };
}
