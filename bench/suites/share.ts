// 8. Shared agent processes (§13), against one process per session, in the same run:
// - session/open latency on the flood agent: cold (a process per open) vs warm-shared (a
//   live shared process with room: only session/new) vs prewarmed (agents/prewarm first);
// - N sessions on the light agent: total RSS of the sidecar and every agent (VmRSS of the
//   whole process tree) with `share` (8 per process) vs one process per session;
// - 8 sessions streaming at once: events/s at the host on one shared process vs 8 processes.
import type { ChildProcess } from "node:child_process";
import { Conn } from "../lib/ndjson.js";
import { MARKER, MARKER_ENV, MiB, childPids, memBytes, sleep, startSidecar, stop } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { floodSpec, lightSpec } from "../lib/specs.js";
import { nowMs, quantile } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";
import { INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor } from "../../test/agents/agents.js";

/** The sidecar and every descendant: their VmRSS summed. */
function treeRss(pid: number): { bytes: number; processes: number } {
  let bytes = 0;
  let processes = 0;
  const seen = new Set<number>();
  const walk = (p: number) => {
    if (seen.has(p)) return;
    seen.add(p);
    let b = 0;
    try {
      b = memBytes(p, "VmRSS");
    } catch {
      return; // gone, or a kernel thread without VmRSS
    }
    if (b > 0) {
      bytes += b;
      processes++;
    }
    for (const c of childPids(p)) walk(c);
  };
  walk(pid);
  return { bytes, processes };
}

async function withSidecar<T>(fn: (conn: Conn, side: ChildProcess) => Promise<T>): Promise<T> {
  const side = startSidecar(["--max-agent-processes", "1024"]);
  try {
    const conn = new Conn(side.stdin!, side.stdout!);
    await conn.ok("ping", {});
    const r = await fn(conn, side);
    const code = await stop(side, 60_000);
    if (code !== 0) throw new Error(`the sidecar exited with ${code}`);
    return r;
  } finally {
    await stop(side, 5_000);
  }
}

interface Latency {
  p50: number;
  p99: number;
}

/** `n` sequential opens, each closed after its first prompt; `prepare` runs first. */
async function openLatency(n: number, spec: Record<string, unknown>, prepare?: (conn: Conn) => Promise<void>): Promise<Latency> {
  return withSidecar(async (conn) => {
    await prepare?.(conn);
    const lat: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = nowMs();
      const { sessionId } = await conn.ok("session/open", { spec });
      lat.push(nowMs() - t0);
      ids.push(sessionId);
    }
    for (const sessionId of ids) {
      const o = await conn.ok("session/prompt", { sessionId, text: "hello" });
      if (o.text !== "ok:5") throw new Error(`a prompt got ${JSON.stringify(o.text)}`);
    }
    return { p50: quantile(lat, 0.5), p99: quantile(lat, 0.99) };
  });
}

async function rssOf(n: number, share: boolean): Promise<{ bytes: number; processes: number }> {
  return withSidecar(async (conn, side) => {
    const spec = share ? { ...lightSpec(), share: {} } : lightSpec();
    const ids = await Promise.all(Array.from({ length: n }, async () => (await conn.ok("session/open", { spec })).sessionId as string));
    const outcomes = await Promise.all(ids.map((sessionId) => conn.ok("session/prompt", { sessionId, text: "hello" })));
    if (outcomes.some((o) => o.text !== "pong")) throw new Error("a prompt did not get its answer");
    await sleep(300);
    return treeRss(side.pid!);
  });
}

async function streams(sessions: number, events: number, share: boolean): Promise<{ eventsPerSec: number; processes: number }> {
  return withSidecar(async (conn, side) => {
    const spec = share ? { ...floodSpec(), share: { maxSessions: sessions } } : floodSpec();
    const ids: string[] = [];
    for (let i = 0; i < sessions; i++) ids.push((await conn.ok("session/open", { spec })).sessionId);
    const processes = childPids(side.pid!).length;
    const per = new Map<string, number>();
    conn.onNotification = (m) => {
      if (m.method === "session/event" && m.params.event.type === "messageChunk") per.set(m.params.sessionId, (per.get(m.params.sessionId) ?? 0) + 1);
    };
    const t0 = nowMs();
    await Promise.all(ids.map((sessionId) => conn.ok("session/prompt", { sessionId, text: `flood:${events}:16` })));
    const ms = nowMs() - t0;
    for (const sid of ids) if (per.get(sid) !== events) throw new Error(`session ${sid} got ${per.get(sid)} of ${events} events`);
    return { eventsPerSec: (sessions * events) / (ms / 1000), processes };
  });
}

/**
 * --real: the same three open latencies with gemini --acp against its loopback mock (the
 * agent of test/agents): cold (a process per open), warm-shared, and prewarmed — the last one
 * in a fresh sidecar per open, so that each measured open is the first on its prewarmed process.
 */
async function realOpens(ctx: SuiteContext): Promise<Row[]> {
  const agent = "gemini-acp";
  if (!agentsInstalled([agent])) throw new Error(`--real needs the real agents: ${INSTALL_HINT}`);
  const mock = await startMockFor(agent, () => undefined);
  const run = prepareAgent(agent, mock);
  try {
    const command = run.command();
    const env = command.env as { policy: "sanitized"; inherit?: string[]; set?: Record<string, string> };
    // The bench's marker, so that every gemini process is found and killed with its suite.
    const spec: Record<string, unknown> = { id: agent, lane: "acp", command: { ...command, env: { ...env, set: { ...(env.set ?? {}), [MARKER_ENV]: MARKER } } } };
    const cwd = run.cwd;
    const n = ctx.quick ? 2 : 5;
    const time = async (conn: Conn, s: Record<string, unknown>): Promise<{ ms: number; sessionId: string }> => {
      const t0 = nowMs();
      const { sessionId } = await conn.ok("session/open", { spec: s, cwd });
      return { ms: nowMs() - t0, sessionId };
    };
    const cold = await withSidecar(async (conn) => {
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const o = await time(conn, spec);
        ms.push(o.ms);
        await conn.ok("session/close", { sessionId: o.sessionId });
      }
      return ms;
    });
    const shared = { ...spec, share: { maxSessions: n + 1 } };
    const warm = await withSidecar(async (conn) => {
      await time(conn, shared);
      const ms: number[] = [];
      for (let i = 0; i < n; i++) ms.push((await time(conn, shared)).ms);
      return ms;
    });
    const prewarmed: number[] = [];
    for (let i = 0; i < n; i++) {
      prewarmed.push(
        await withSidecar(async (conn) => {
          await conn.ok("agents/prewarm", { spec: shared });
          return (await time(conn, shared)).ms;
        }),
      );
    }
    const p50 = (xs: number[]) => quantile(xs, 0.5);
    ctx.log(`  ${agent}: open p50 cold ${p50(cold).toFixed(0)} ms, warm-shared ${p50(warm).toFixed(1)} ms, prewarmed ${p50(prewarmed).toFixed(1)} ms (${n} each)`);
    const base = { baseline: p50(cold), baselineName: `${agent} cold open (a process per session)` };
    return [
      row({ section: "share", metric: `${agent} open p50: cold (own process)`, unit: "ms", value: p50(cold), note: `${n} opens, against the loopback Gemini mock` }),
      row({ section: "share", metric: `${agent} open p50: warm shared`, unit: "ms", value: p50(warm), ...base, target: { max: 0.05, text: "≤ 5% of cold" } }),
      row({ section: "share", metric: `${agent} open p99: warm shared`, unit: "ms", value: quantile(warm, 0.99), baseline: quantile(cold, 0.99), baselineName: base.baselineName }),
      row({ section: "share", metric: `${agent} open p50: prewarmed`, unit: "ms", value: p50(prewarmed), ...base, target: { max: 0.05, text: "≤ 5% of cold" } }),
    ];
  } finally {
    await run.cleanup();
    await mock.close();
  }
}

export async function shareSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const opens = ctx.quick ? 5 : 40;
  const cold = await openLatency(opens, floodSpec());
  ctx.log(`  cold open p50 ${cold.p50.toFixed(1)} ms, p99 ${cold.p99.toFixed(1)} ms`);
  const sharedSpec = { ...floodSpec(), share: { maxSessions: opens + 1 } };
  // The first open starts the process; the measured ones find it live with room.
  const warm = await openLatency(opens, sharedSpec, async (conn) => {
    await conn.ok("session/open", { spec: sharedSpec });
  });
  ctx.log(`  warm-shared open p50 ${warm.p50.toFixed(2)} ms, p99 ${warm.p99.toFixed(2)} ms`);
  const prewarmSpec = { ...floodSpec(), share: { maxSessions: opens } };
  const prewarmed = await openLatency(opens, prewarmSpec, async (conn) => {
    await conn.ok("agents/prewarm", { spec: prewarmSpec });
  });
  ctx.log(`  prewarmed open p50 ${prewarmed.p50.toFixed(2)} ms, p99 ${prewarmed.p99.toFixed(2)} ms`);

  const n = ctx.quick ? 40 : 500;
  const own = await rssOf(n, false);
  const shared = await rssOf(n, true);
  ctx.log(`  ${n} sessions: ${(own.bytes / MiB).toFixed(0)} MiB in ${own.processes} processes one per session, ${(shared.bytes / MiB).toFixed(0)} MiB in ${shared.processes} shared`);

  const events = ctx.quick ? 5_000 : 50_000;
  const eight = await streams(8, events, false);
  const one = await streams(8, events, true);
  ctx.log(`  8 streams: ${one.eventsPerSec.toFixed(0)} events/s on ${one.processes} shared process, ${eight.eventsPerSec.toFixed(0)} on ${eight.processes}`);

  const perOpen = { baselineName: "cold open (a process per session)" };
  const rows: Row[] = [
    row({ section: "share", metric: "open p50: cold (own process)", unit: "ms", value: cold.p50 }),
    row({ section: "share", metric: "open p99: cold (own process)", unit: "ms", value: cold.p99 }),
    row({ section: "share", metric: "open p50: warm shared", unit: "ms", value: warm.p50, baseline: cold.p50, ...perOpen, target: { max: 0.05, text: "≤ 5% of cold" } }),
    row({ section: "share", metric: "open p99: warm shared", unit: "ms", value: warm.p99, baseline: cold.p99, ...perOpen }),
    row({ section: "share", metric: "open p50: prewarmed", unit: "ms", value: prewarmed.p50, baseline: cold.p50, ...perOpen, target: { max: 0.05, text: "≤ 5% of cold" } }),
    row({ section: "share", metric: "open p99: prewarmed", unit: "ms", value: prewarmed.p99, baseline: cold.p99, ...perOpen }),
    row({
      section: "share",
      metric: `${n} sessions: RSS of sidecar + agents, shared (8/process)`,
      unit: "MiB",
      value: shared.bytes / MiB,
      baseline: own.bytes / MiB,
      baselineName: "one agent process per session",
      target: { max: 0.25, text: "≤ 1/4" },
      note: `${shared.processes} vs ${own.processes} processes`,
    }),
    row(
      {
        section: "share",
        metric: "8 sessions streaming at once: events/s, one shared process",
        unit: "ev/s",
        value: one.eventsPerSec,
        baseline: eight.eventsPerSec,
        baselineName: "8 processes",
      },
      true,
    ),
  ];
  if (ctx.real) rows.push(...(await realOpens(ctx)));
  return { rows, details: { opens, cold, warm, prewarmed, n, own, shared, events, oneProcess: one, eightProcesses: eight } };
}
