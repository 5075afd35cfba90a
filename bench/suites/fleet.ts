// 11. Fleet operations (issue 26): one sidecar as a scheduler sees it, listening on
// ws://127.0.0.1 (what a pod or sandbox runs).
// - N session/open at once on the light agent, through the WebSocket and through stdio: each
//   open's time from the burst's start (p50, p99). Baseline: the bench spawning the same N
//   agents and doing the same handshake itself, timed from the same start.
// - /readyz polled every 10 ms during that burst: what a readiness probe waits.
// - the sidecar's RSS per idle session: what N more sessions add after a first N (the first
//   burst also grows V8's young generation, a fixed cost); /metrics with M sessions held.
// - closing all N: SIGTERM (no turn in flight: the drain ends at once) → exit. Baseline: the
//   bench ending its N agents (stdin EOF) and waiting for every exit.
// - SIGTERM → exit with 10 turns in flight (the example agent, /slow 10: 1 s each).
// - one open at a time, 50 times: p50 through the WebSocket vs stdio.
import type { ChildProcess } from "node:child_process";
import { Conn } from "../lib/ndjson.js";
import { DIST, MARKER, MARKER_ENV, exited, memBytes, roomFor, settledSidecar, sleep, startSidecar, stop, track } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { LIGHT_AGENT, lightSpec } from "../lib/specs.js";
import { nowMs, quantile } from "../lib/stats.js";
import { WsConn, listeningSidecar } from "../lib/ws.js";
import type { SuiteContext } from "./context.js";

interface Caller {
  ok<T = any>(method: string, params?: unknown): Promise<T>;
}

interface Burst {
  /** Each open's time from the burst's start, ms, sorted. */
  opens: number[];
  totalMs: number;
  /** /readyz answer times during the burst (ws only). */
  readyz: number[];
}

const EXAMPLE_AGENT = `${DIST}src/examples/example-agent.js`;
const exampleSpec = () => ({ id: "example", lane: "acp", command: { program: process.execPath, args: [EXAMPLE_AGENT, "--delay-ms", "1"], env: { policy: "sanitized", inherit: ["PATH", "HOME"], set: { [MARKER_ENV]: MARKER } } } });

async function burst(caller: Caller, n: number, http?: string): Promise<Burst & { ids: string[] }> {
  const opens: number[] = [];
  const readyz: number[] = [];
  let done = false;
  const probe = (async () => {
    if (!http) return;
    while (!done) {
      const t = nowMs();
      const r = await fetch(`${http}/readyz`);
      await r.text();
      readyz.push(nowMs() - t);
      await sleep(10);
    }
  })();
  const t0 = nowMs();
  const ids = await Promise.all(
    Array.from({ length: n }, async () => {
      const { sessionId } = await caller.ok("session/open", { spec: lightSpec() });
      opens.push(nowMs() - t0);
      return sessionId as string;
    }),
  );
  const totalMs = nowMs() - t0;
  done = true;
  await probe;
  return { opens: opens.sort((a, b) => a - b), totalMs, readyz, ids };
}

/** The baseline: N agents spawned and handshaken by the bench, then ended by stdin EOF. */
async function direct(n: number): Promise<Burst & { closeMs: number }> {
  const agents: ChildProcess[] = [];
  try {
    const opens: number[] = [];
    const t0 = nowMs();
    await Promise.all(
      Array.from({ length: n }, async () => {
        const agent = track({ cmd: "/bin/sh", args: [LIGHT_AGENT] });
        agents.push(agent);
        const conn = new Conn(agent.stdin!, agent.stdout!);
        await conn.ok("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: "bench", version: "1" } });
        await conn.ok("session/new", { cwd: process.cwd(), mcpServers: [] });
        opens.push(nowMs() - t0);
      }),
    );
    const totalMs = nowMs() - t0;
    await sleep(300);
    const c0 = nowMs();
    await Promise.all(agents.map((a) => stop(a, 10_000)));
    return { opens: opens.sort((a, b) => a - b), totalMs, readyz: [], closeMs: nowMs() - c0 };
  } finally {
    await Promise.all(agents.map((a) => stop(a, 5_000)));
  }
}

/** N opens at once over ws (with /readyz probed), RSS per idle session, then SIGTERM → exit. */
async function viaWs(n: number): Promise<Burst & { rssPerSession: number; closeMs: number }> {
  const { side, url, http } = await listeningSidecar(roomFor(n));
  try {
    const conn = await WsConn.open(url);
    await conn.ok("ping", {});
    await sleep(200);
    const before = memBytes(side.pid!, "VmRSS");
    const b = await burst(conn, n, http);
    await sleep(300);
    const rssPerSession = (memBytes(side.pid!, "VmRSS") - before) / n;
    const c0 = nowMs();
    side.kill("SIGTERM");
    const code = await exited(side);
    if (code !== 0) throw new Error(`the sidecar exited with ${code} after closing ${n} sessions`);
    conn.close();
    return { ...b, rssPerSession, closeMs: nowMs() - c0 };
  } finally {
    await stop(side, 5_000);
  }
}

async function viaStdio(n: number): Promise<Burst> {
  const side = startSidecar(roomFor(n));
  try {
    const conn = new Conn(side.stdin!, side.stdout!);
    await conn.ok("ping", {});
    return await burst(conn, n);
  } finally {
    await stop(side, 60_000);
  }
}

/**
 * What one more idle session costs: RSS after a second burst of `n` opens minus RSS after the
 * first, ÷ n. The first burst's growth also holds V8's young generation growing to its
 * maximum (32 MiB on 64-bit Node, a fixed cost paid once under any allocation burst, and
 * given back by V8's memory reducer after about 30 s idle): the second holds only what the
 * sessions keep.
 */
async function marginalRss(n: number): Promise<{ first: number; next: number }> {
  const { side, conn, rssBefore: r0 } = await settledSidecar(2 * n);
  try {
    const opens = async () => {
      await Promise.all(Array.from({ length: n }, () => conn.ok("session/open", { spec: lightSpec() })));
      await sleep(300);
      return memBytes(side.pid!, "VmRSS");
    };
    const r1 = await opens();
    const r2 = await opens();
    return { first: (r1 - r0) / n, next: (r2 - r1) / n };
  } finally {
    await stop(side, 60_000);
  }
}

/** /metrics scraped 20 times with `m` sessions held. */
async function scrape(m: number): Promise<{ p50: number; max: number; bytes: number }> {
  const { side, url, http } = await listeningSidecar(roomFor(m));
  try {
    const conn = await WsConn.open(url);
    for (let i = 0; i < m; i += 100) await Promise.all(Array.from({ length: Math.min(100, m - i) }, () => conn.ok("session/open", { spec: lightSpec() })));
    await sleep(300);
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 20; i++) {
      const t = nowMs();
      const r = await fetch(`${http}/metrics`);
      bytes = (await r.text()).length;
      times.push(nowMs() - t);
    }
    conn.close();
    return { p50: quantile(times, 0.5), max: Math.max(...times), bytes };
  } finally {
    side.kill("SIGTERM");
    await stop(side, 60_000);
  }
}

/** 10 turns of about 1 s in flight, then SIGTERM: until the last answer, and until exit. */
async function drainWithTurns(): Promise<{ lastAnswerMs: number; exitMs: number; finished: number }> {
  const { side, url } = await listeningSidecar(["--drain-timeout", "30000"]);
  try {
    const conn = await WsConn.open(url);
    const ids = await Promise.all(Array.from({ length: 10 }, async () => (await conn.ok("session/open", { spec: exampleSpec() })).sessionId as string));
    let lastAnswer = 0;
    let finished = 0;
    const turns = ids.map((sessionId) =>
      conn.call("session/prompt", { sessionId, text: "/slow 10" }).then((m) => {
        lastAnswer = nowMs();
        if (m.result?.stopReason === "endTurn") finished++;
      }),
    );
    await sleep(100);
    const t0 = nowMs();
    side.kill("SIGTERM");
    const code = await exited(side);
    const exitMs = nowMs() - t0;
    await Promise.all(turns);
    if (code !== 0) throw new Error(`the draining sidecar exited with ${code}`);
    return { lastAnswerMs: lastAnswer - t0, exitMs, finished };
  } finally {
    await stop(side, 5_000);
  }
}

/** One open at a time: p50 over the WebSocket and over stdio. */
async function sequentialOpens(k: number): Promise<{ ws: number; stdio: number }> {
  const measure = async (caller: Caller) => {
    const lat: number[] = [];
    for (let i = 0; i < k; i++) {
      const t = nowMs();
      const { sessionId } = await caller.ok("session/open", { spec: lightSpec() });
      lat.push(nowMs() - t);
      await caller.ok("session/close", { sessionId });
    }
    return quantile(lat, 0.5);
  };
  const { side, url } = await listeningSidecar();
  let ws: number;
  try {
    const conn = await WsConn.open(url);
    ws = await measure(conn);
    conn.close();
  } finally {
    side.kill("SIGTERM");
    await stop(side, 10_000);
  }
  const plain = startSidecar();
  try {
    return { ws, stdio: await measure(new Conn(plain.stdin!, plain.stdout!)) };
  } finally {
    await stop(plain, 10_000);
  }
}

export async function fleetSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const n = ctx.quick ? 30 : 500;
  const m = ctx.quick ? 100 : 1000;
  const d = await direct(n);
  const w = await viaWs(n);
  const s = await viaStdio(n);
  const q = (xs: number[], p: number) => quantile(xs, p);
  ctx.log(`  direct  open p50 ${q(d.opens, 0.5).toFixed(0)} ms, p99 ${q(d.opens, 0.99).toFixed(0)} ms; close all ${d.closeMs.toFixed(0)} ms`);
  ctx.log(`  ws      open p50 ${q(w.opens, 0.5).toFixed(0)} ms, p99 ${q(w.opens, 0.99).toFixed(0)} ms; /readyz p50 ${q(w.readyz, 0.5).toFixed(1)} ms max ${Math.max(...w.readyz).toFixed(0)} ms; ${(w.rssPerSession / 1024).toFixed(0)} KiB/session; SIGTERM → exit ${w.closeMs.toFixed(0)} ms`);
  ctx.log(`  stdio   open p50 ${q(s.opens, 0.5).toFixed(0)} ms, p99 ${q(s.opens, 0.99).toFixed(0)} ms`);
  const mem = await marginalRss(n);
  ctx.log(`  RSS per session: first ${n} opens ${(mem.first / 1024).toFixed(1)} KiB, the next ${n} ${(mem.next / 1024).toFixed(1)} KiB`);
  const sc = await scrape(m);
  ctx.log(`  /metrics with ${m} sessions: p50 ${sc.p50.toFixed(1)} ms, max ${sc.max.toFixed(1)} ms (${sc.bytes} bytes)`);
  const dr = await drainWithTurns();
  ctx.log(`  SIGTERM with 10 turns in flight: last answer after ${dr.lastAnswerMs.toFixed(0)} ms, exit after ${dr.exitMs.toFixed(0)} ms; ${dr.finished}/10 finished`);
  const seq = await sequentialOpens(ctx.quick ? 10 : 50);
  ctx.log(`  one open at a time: ws p50 ${seq.ws.toFixed(1)} ms, stdio p50 ${seq.stdio.toFixed(1)} ms`);
  const base = { baselineName: `${n} agents driven directly` };
  const rows: Row[] = [
    row({ section: "fleet", metric: `${n} opens at once over ws: p50 from the burst`, unit: "ms", value: q(w.opens, 0.5), baseline: q(d.opens, 0.5), ...base, target: { max: 1.1, text: "≤ 1.1×" } }),
    row({ section: "fleet", metric: `${n} opens at once over ws: p99`, unit: "ms", value: q(w.opens, 0.99), baseline: q(d.opens, 0.99), ...base }),
    row({ section: "fleet", metric: `${n} opens at once over ws: first answer`, unit: "ms", value: w.opens[0], baseline: d.opens[0], ...base }),
    row({ section: "fleet", metric: `${n} opens at once over stdio: p50 from the burst`, unit: "ms", value: q(s.opens, 0.5), baseline: q(d.opens, 0.5), ...base, target: { max: 1.1, text: "≤ 1.1×" } }),
    row({ section: "fleet", metric: `${n} opens at once: p50 ÷ p99 (ws)`, unit: "", value: q(w.opens, 0.5) / q(w.opens, 0.99), baseline: q(d.opens, 0.5) / q(d.opens, 0.99), ...base }),
    row({ section: "fleet", metric: `/readyz during the ${n}-open burst: p50`, unit: "ms", value: q(w.readyz, 0.5) }),
    row({ section: "fleet", metric: `/readyz during the ${n}-open burst: max`, unit: "ms", value: Math.max(...w.readyz) }),
    row({ section: "fleet", metric: `sidecar RSS per idle session: ${n} more after ${n}`, unit: "KiB", value: mem.next / 1024, target: { max: 64, text: "≤ 64 KiB" } }),
    row({ section: "fleet", metric: `sidecar RSS growth over the first ${n}-open burst ÷ ${n} (ws; V8's young generation grows with it)`, unit: "KiB", value: w.rssPerSession / 1024 }),
    row({ section: "fleet", metric: `close all ${n}: SIGTERM → exit`, unit: "ms", value: w.closeMs, baseline: d.closeMs, baselineName: `${n} agents ended directly (stdin EOF)`, target: { max: 1.5, text: "≤ 1.5×" } }),
    row({ section: "fleet", metric: `/metrics scrape with ${m} sessions: p50`, unit: "ms", value: sc.p50, target: { max: 50, text: "≤ 50 ms" } }),
    row({ section: "fleet", metric: `/metrics scrape with ${m} sessions: max of 20`, unit: "ms", value: sc.max }),
    row({ section: "fleet", metric: "SIGTERM → exit, 10 turns of ~1 s in flight", unit: "ms", value: dr.exitMs, baseline: dr.lastAnswerMs, baselineName: "SIGTERM → the last turn's answer" }),
    row({ section: "fleet", metric: "turns in flight at SIGTERM lost (of 10)", unit: "", value: 10 - dr.finished, target: { max: 0, text: "0" } }),
    row({ section: "fleet", metric: "one open at a time over ws: p50", unit: "ms", value: seq.ws, baseline: seq.stdio, baselineName: "the same over stdio" }),
  ];
  const brief = (b: Burst) => ({ p50: q(b.opens, 0.5), p99: q(b.opens, 0.99), first: b.opens[0], totalMs: b.totalMs });
  return {
    rows,
    details: {
      n,
      m,
      direct: { ...brief(d), closeMs: d.closeMs },
      rssPerSession: { firstBurst: w.rssPerSession, next: mem.next, firstStdio: mem.first },
      ws: { ...brief(w), rssPerSession: w.rssPerSession, closeMs: w.closeMs, readyz: { n: w.readyz.length, p50: q(w.readyz, 0.5), p99: q(w.readyz, 0.99), max: Math.max(...w.readyz) } },
      stdio: brief(s),
      scrape: sc,
      drain: dr,
      sequential: seq,
    },
  };
}
