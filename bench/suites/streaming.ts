// 2. Event streaming: one turn of N small agent_message_chunk updates from the same lean
// ACP agent, consumed three ways: through a4aa serve (host ← sidecar ← agent), directly by
// @agentclientprotocol/sdk's client (no hop), by the hand-written NDJSON reader (the
// floor: split lines, JSON.parse, count), and through a minimal Node relay in a4aa serve's
// place (bench/baselines/relay.ts: the same hop, with nothing but parse, map, stringify).
import type { ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { Conn } from "../lib/ndjson.js";
import { childPids, cpuMs, startSidecar, stop, track, withTimeout } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { FLOOD_AGENT, RELAY, floodSpec } from "../lib/specs.js";
import { nowMs } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";

export interface StreamRun {
  events: number;
  ms: number;
  rate: number;
  /** CPU of the consumer side: the sidecar (sidecar run) or the bench process (direct runs). */
  consumerCpuMs: number;
  /** CPU of the host process in the sidecar run (it parses what the sidecar writes). */
  hostCpuMs?: number;
  agentCpuMs: number;
}

const SIZE = 16;
const processCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export async function floor(n: number): Promise<StreamRun> {
  const agent = track({ cmd: process.execPath, args: [FLOOD_AGENT] });
  try {
    const conn = new Conn(agent.stdin!, agent.stdout!);
    let events = 0;
    conn.onNotification = (m) => {
      if (m.method === "session/update" && m.params.update.sessionUpdate === "agent_message_chunk") events++;
    };
    await conn.ok("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await conn.ok("session/new", { cwd: process.cwd(), mcpServers: [] });
    const a0 = cpuMs(agent.pid!);
    const c0 = processCpuMs();
    const t0 = nowMs();
    await conn.ok("session/prompt", { sessionId, prompt: [{ type: "text", text: `flood:${n}:${SIZE}` }] });
    const ms = nowMs() - t0;
    return { events, ms, rate: (events / ms) * 1000, consumerCpuMs: processCpuMs() - c0, agentCpuMs: cpuMs(agent.pid!) - a0 };
  } finally {
    await stop(agent);
  }
}

async function sdk(n: number): Promise<StreamRun> {
  const agent = track({ cmd: process.execPath, args: [FLOOD_AGENT] });
  try {
    let events = 0;
    let target = Infinity;
    let allIn: () => void = () => undefined;
    const done = new Promise<void>((r) => (allIn = r));
    const app = client({ name: "a4aa-bench" }).onNotification("session/update", (c) => {
      if (c.params.update.sessionUpdate === "agent_message_chunk" && ++events >= target) allIn();
    });
    const stream = ndJsonStream(
      Writable.toWeb(agent.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(agent.stdout!) as unknown as ReadableStream<Uint8Array>,
    );
    return await app.connectWith(stream, async (cx) => {
      await cx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await cx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const a0 = cpuMs(agent.pid!);
      const c0 = processCpuMs();
      const t0 = nowMs();
      await cx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `flood:${n}:${SIZE}` }] });
      // The SDK may hand notifications to their handler after the response: wait for all.
      target = n;
      if (events < n) await withTimeout(done, 30_000, `SDK client: ${events} of ${n} updates`);
      const ms = nowMs() - t0;
      return { events, ms, rate: (events / ms) * 1000, consumerCpuMs: processCpuMs() - c0, agentCpuMs: cpuMs(agent.pid!) - a0 };
    });
  } finally {
    await stop(agent);
  }
}

export function sidecar(n: number): Promise<StreamRun> {
  return throughHop(n, startSidecar());
}

/** The same turn through the minimal relay instead of a4aa serve. */
export function relay(n: number): Promise<StreamRun> {
  return throughHop(n, track({ cmd: process.execPath, args: [RELAY] }));
}

/** host ← hop ← agent, where the hop is a4aa serve or the relay baseline. */
async function throughHop(n: number, side: ChildProcess): Promise<StreamRun> {
  try {
    const conn = new Conn(side.stdin!, side.stdout!);
    let events = 0;
    conn.onNotification = (m) => {
      if (m.method === "session/event" && m.params.event.type === "messageChunk") events++;
    };
    const { sessionId } = await conn.ok("session/open", { spec: floodSpec() });
    // The agent's CPU is context only (/proc/<pid>/task/<tid>/children may be missing).
    const agentPid = childPids(side.pid!)[0];
    const agentCpu = () => (agentPid ? cpuMs(agentPid) : NaN);
    const s0 = cpuMs(side.pid!);
    const a0 = agentCpu();
    const c0 = processCpuMs();
    const t0 = nowMs();
    const outcome = await conn.ok("session/prompt", { sessionId, text: `flood:${n}:${SIZE}` });
    const ms = nowMs() - t0;
    const r: StreamRun = {
      events,
      ms,
      rate: (events / ms) * 1000,
      consumerCpuMs: cpuMs(side.pid!) - s0,
      hostCpuMs: processCpuMs() - c0,
      agentCpuMs: agentCpu() - a0,
    };
    if (outcome.stopReason !== "endTurn") throw new Error(`the turn ended with ${outcome.stopReason}`);
    await conn.ok("session/close", { sessionId });
    return r;
  } finally {
    await stop(side);
  }
}

export async function streamingSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const n = ctx.quick ? 10_000 : 200_000;
  const rounds = ctx.quick ? 1 : 2;
  const runs: Record<"floor" | "sdk" | "relay" | "sidecar", StreamRun[]> = { floor: [], sdk: [], relay: [], sidecar: [] };
  const kinds = { floor, sdk, relay, sidecar } as const;
  for (let r = 0; r < rounds; r++) {
    for (const k of ["floor", "sdk", "relay", "sidecar"] as const) {
      const x = await withTimeout(kinds[k](n), 120_000, `streaming (${k})`);
      if (x.events !== n) throw new Error(`${k}: ${x.events} of ${n} events arrived`);
      runs[k].push(x);
      ctx.log(`  ${k.padEnd(7)} ${Math.round(x.rate).toLocaleString("en-US")} events/s, consumer CPU ${Math.round(x.consumerCpuMs)} ms, agent CPU ${Math.round(x.agentCpuMs)} ms`);
    }
  }
  const best = (xs: StreamRun[]) => xs.reduce((a, b) => (b.rate > a.rate ? b : a));
  const f = best(runs.floor);
  const d = best(runs.sdk);
  const rl = best(runs.relay);
  const s = best(runs.sidecar);
  const label = `${n.toLocaleString("en-US")} × ${SIZE} B chunks`;
  const rows: Row[] = [
    row({ section: "streaming", metric: `events/s (${label})`, unit: "ev/s", value: s.rate, baseline: d.rate, baselineName: "ACP SDK client, direct", target: { below: 1, text: "< 1× (faster)" } }, true),
    row({ section: "streaming", metric: "events/s", unit: "ev/s", value: s.rate, baseline: f.rate, baselineName: "hand-written NDJSON reader", target: { max: 2, text: "≤ 2×" } }, true),
    row({ section: "streaming", metric: "events/s", unit: "ev/s", value: s.rate, baseline: rl.rate, baselineName: "minimal Node relay, same hop", target: { max: 1.5, text: "≤ 1.5×" } }, true),
    row({ section: "streaming", metric: "consumer CPU per event (sidecar's own)", unit: "µs", value: (s.consumerCpuMs * 1000) / n, baseline: (d.consumerCpuMs * 1000) / n, baselineName: "ACP SDK client, direct" }),
    row({ section: "streaming", metric: "consumer CPU per event (sidecar's own)", unit: "µs", value: (s.consumerCpuMs * 1000) / n, baseline: (f.consumerCpuMs * 1000) / n, baselineName: "hand-written NDJSON reader" }),
    row({ section: "streaming", metric: "consumer CPU per event (sidecar's own)", unit: "µs", value: (s.consumerCpuMs * 1000) / n, baseline: (rl.consumerCpuMs * 1000) / n, baselineName: "minimal Node relay, same hop" }),
  ];
  return { rows, details: { n, size: SIZE, rounds, runs } };
}
