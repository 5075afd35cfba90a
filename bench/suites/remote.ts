// 13. Remote hosts (issue 25): what a WebSocket connection costs against stdio, in one run.
// - events/s of one streaming turn (the flood agent, N small chunks) read over a loopback
//   WebSocket (`serve --listen ws://127.0.0.1:0`) vs the same turn over stdio;
// - ping p50 over the WebSocket vs a bare `ws` echo server (bench/baselines/ws-echo.ts: the
//   same library, parse and answer, nothing else);
// - catch-up: a second connection attaches with afterSeq 0 to a session whose turn made
//   10,000 events: request → the last caught-up event. Baseline: the same events read with
//   session/history (one answer) on that connection;
// - 1,000 idle WebSocket connections: the sidecar's RSS growth.
import type { ChildProcess } from "node:child_process";
import { Conn } from "../lib/ndjson.js";
import { DIST, memBytes, sleep, startSidecar, stop, track, withTimeout } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { floodSpec } from "../lib/specs.js";
import { nowMs, quantile } from "../lib/stats.js";
import { WsConn, listeningSidecar } from "../lib/ws.js";
import type { SuiteContext } from "./context.js";

const WS_ECHO = `${DIST}bench/baselines/ws-echo.js`;
const SIZE = 16;

/** A listening sidecar reads no stdin: SIGTERM ends it (no turn in flight, the drain ends at once). */
function stopListening(side: ChildProcess): Promise<number | null> {
  side.kill("SIGTERM");
  return stop(side);
}

/** Events per second of one flood turn of `n` chunks, read over `conn`. */
async function streamRate(conn: { ok: Conn["ok"]; onNotification: Conn["onNotification"] | undefined }, n: number): Promise<number> {
  let events = 0;
  conn.onNotification = (m) => {
    if (m.method === "session/event" && m.params.event.type === "messageChunk") events++;
  };
  const { sessionId } = await conn.ok("session/open", { spec: floodSpec() });
  const t0 = nowMs();
  await conn.ok("session/prompt", { sessionId, text: `flood:${n}:${SIZE}` });
  const ms = nowMs() - t0;
  if (events !== n) throw new Error(`streaming: ${events} of ${n} events arrived before the answer`);
  await conn.ok("session/close", { sessionId });
  return (n / ms) * 1000;
}

async function overStdio(n: number): Promise<number> {
  const side = startSidecar();
  try {
    return await streamRate(new Conn(side.stdin!, side.stdout!), n);
  } finally {
    await stop(side);
  }
}

async function overWs(n: number): Promise<number> {
  const { side, url } = await listeningSidecar();
  const conn = await WsConn.open(url);
  try {
    return await streamRate(conn, n);
  } finally {
    conn.close();
    await stopListening(side);
  }
}

async function pingP50(conn: { call: (m: string, p?: unknown) => Promise<unknown> }, n: number): Promise<number> {
  for (let i = 0; i < 200; i++) await conn.call("ping", {});
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = nowMs();
    await conn.call("ping", {});
    lat.push(nowMs() - t);
  }
  return quantile(lat, 0.5);
}

async function echoPing(n: number): Promise<number> {
  const echo = track({ cmd: process.execPath, args: [WS_ECHO] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let text = "";
      echo.stdout!.on("data", (d: Buffer) => {
        text += d.toString();
        const m = /listening on (ws:\/\/\S+)/.exec(text);
        if (m) resolve(m[1]!);
      });
      echo.once("exit", (code) => reject(new Error(`the ws echo server exited ${code}`)));
    });
    const conn = await WsConn.open(url);
    try {
      return await pingP50(conn, n);
    } finally {
      conn.close();
    }
  } finally {
    await stop(echo);
  }
}

async function sidecarPing(n: number): Promise<number> {
  const { side, url } = await listeningSidecar();
  const conn = await WsConn.open(url);
  try {
    return await pingP50(conn, n);
  } finally {
    conn.close();
    await stopListening(side);
  }
}

/** A turn of `n` events journaled, then a second connection attaches from seq 0. */
async function catchUp(n: number): Promise<{ attachMs: number; historyMs: number; events: number }> {
  const { side, url } = await listeningSidecar();
  const a = await WsConn.open(url);
  const b = await WsConn.open(url);
  try {
    const { sessionId } = await a.ok("session/open", { spec: floodSpec() });
    await a.ok("session/prompt", { sessionId, text: `flood:${n}:${SIZE}` });
    const t0 = nowMs();
    const { events, lastSeq } = await b.ok("session/history", { sessionId, afterSeq: 0, limit: 10_000 });
    const historyMs = nowMs() - t0;
    let last = 0;
    let caughtUp: () => void = () => undefined;
    const done = new Promise<void>((r) => (caughtUp = r));
    let target = Infinity;
    b.onNotification = (m) => {
      if (m.method !== "session/event") return;
      last = m.params.seq;
      if (last >= target) caughtUp();
    };
    const t1 = nowMs();
    const attached = await b.ok("session/attach", { sessionId, afterSeq: 0 });
    target = attached.lastSeq;
    if (last < target) await withTimeout(done, 30_000, `catch-up: at seq ${last} of ${target}`);
    const attachMs = nowMs() - t1;
    if (events.length !== lastSeq) throw new Error(`history: ${events.length} events, lastSeq ${lastSeq}`);
    await a.ok("session/close", { sessionId });
    return { attachMs, historyMs, events: attached.lastSeq };
  } finally {
    a.close();
    b.close();
    await stopListening(side);
  }
}

/** The sidecar's RSS growth with `n` idle connections (none of them opens anything). */
async function idleConnections(n: number): Promise<{ perConnKiB: number; totalMiB: number }> {
  const { side, url } = await listeningSidecar();
  const conns: WsConn[] = [];
  try {
    const warm = await WsConn.open(url);
    await warm.ok("ping", {});
    await sleep(300);
    const before = memBytes(side.pid!, "VmRSS");
    for (let i = 0; i < n; i += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => WsConn.open(url)));
      conns.push(...batch);
    }
    // Each connection has said something: the sidecar holds its per-connection state.
    await Promise.all(conns.map((c) => c.ok("ping", {})));
    await sleep(500);
    const grown = memBytes(side.pid!, "VmRSS") - before;
    warm.close();
    return { perConnKiB: grown / n / 1024, totalMiB: grown / 1024 / 1024 };
  } finally {
    for (const c of conns) c.close();
    await stopListening(side);
  }
}

export async function remoteSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const n = ctx.quick ? 20_000 : 100_000;
  const pings = ctx.quick ? 1_000 : 10_000;
  const idle = 1_000;
  // Alternating rounds, best of each (the machine is shared).
  const rounds = ctx.quick ? 1 : 3;
  const ws: number[] = [];
  const stdio: number[] = [];
  const wsPing: number[] = [];
  const echo: number[] = [];
  for (let r = 0; r < rounds; r++) {
    stdio.push(await overStdio(n));
    ws.push(await overWs(n));
    echo.push(await echoPing(pings));
    wsPing.push(await sidecarPing(pings));
    ctx.log(`  round ${r + 1}: streaming ${Math.round(ws.at(-1)!)}/s over ws, ${Math.round(stdio.at(-1)!)}/s over stdio; ping p50 ${wsPing.at(-1)!.toFixed(3)} ms (echo ${echo.at(-1)!.toFixed(3)} ms)`);
  }
  const c = await catchUp(10_000);
  ctx.log(`  catch-up of ${c.events} events: attach ${c.attachMs.toFixed(1)} ms, session/history ${c.historyMs.toFixed(1)} ms`);
  const m = await idleConnections(idle);
  ctx.log(`  ${idle} idle connections: +${m.totalMiB.toFixed(1)} MiB (${m.perConnKiB.toFixed(1)} KiB each)`);
  const rows: Row[] = [
    row({ section: "remote", metric: `streaming turn over ws (${n.toLocaleString("en-US")} events)`, unit: "ev/s", value: Math.max(...ws), baselineName: "the same over stdio", baseline: Math.max(...stdio), target: { max: 1.25, text: "≥ 0.8× stdio" } }, true),
    row({ section: "remote", metric: `ping p50 over ws (${pings.toLocaleString("en-US")})`, unit: "ms", value: Math.min(...wsPing), baselineName: "bare ws echo server", baseline: Math.min(...echo), target: { max: 1.5, text: "≤ 1.5×" } }),
    row({ section: "remote", metric: `catch-up of ${c.events.toLocaleString("en-US")} events after attach`, unit: "ms", value: c.attachMs, target: { max: 250, text: "≤ 250 ms" } }),
    row({ section: "remote", metric: "the same events by session/history (one answer)", unit: "ms", value: c.historyMs }),
    row({ section: "remote", metric: `${idle.toLocaleString("en-US")} idle connections: sidecar RSS growth`, unit: "MiB", value: m.totalMiB, target: { max: 100, text: "≤ 100 MiB" } }),
  ];
  return { rows, details: { n, pings, rounds, ws, stdio, wsPing, echo, catchUp: c, idle: m } };
}
