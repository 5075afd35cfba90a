// 9. Tracing (R-OTEL-1): what exporting spans costs a turn. The same short turns of the
// flood agent through a4aa serve without export and with `--otel-endpoint` pointed at a
// loopback OTLP receiver (accepts and discards): turn latency p50 and the sidecar's CPU per
// turn, paired in the same run.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Conn } from "../lib/ndjson.js";
import { cpuMs, startSidecar, stop } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { floodSpec } from "../lib/specs.js";
import { median, nowMs } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";

/** One flood turn of `events` chunks: the sidecar's CPU per streamed event. */
async function flood(args: string[], events: number): Promise<number> {
  const side = startSidecar(args);
  try {
    const conn = new Conn(side.stdin!, side.stdout!);
    const { sessionId } = await conn.ok("session/open", { spec: floodSpec() });
    await conn.ok("session/prompt", { sessionId, text: "flood:1000:16" }); // warm-up
    const c0 = cpuMs(side.pid!);
    await conn.ok("session/prompt", { sessionId, text: `flood:${events}:16` });
    return ((cpuMs(side.pid!) - c0) * 1000) / events;
  } finally {
    await stop(side, 10_000);
  }
}

async function turns(args: string[], n: number): Promise<{ p50: number; cpuPerTurn: number }> {
  const side = startSidecar(args);
  try {
    const conn = new Conn(side.stdin!, side.stdout!);
    const { sessionId } = await conn.ok("session/open", { spec: floodSpec() });
    for (let i = 0; i < 20; i++) await conn.ok("session/prompt", { sessionId, text: "flood:10:16" }); // warm-up
    const c0 = cpuMs(side.pid!);
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = nowMs();
      await conn.ok("session/prompt", { sessionId, text: "flood:10:16", traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" });
      times.push(nowMs() - t0);
    }
    const cpu = cpuMs(side.pid!) - c0;
    return { p50: median(times), cpuPerTurn: cpu / n };
  } finally {
    await stop(side, 10_000);
  }
}

export async function otelSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const n = ctx.quick ? 100 : 1000;
  let spans = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d));
    req.on("end", () => {
      spans += (body.match(/"spanId"/g) ?? []).length;
      res.writeHead(200).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const off = await turns([], n);
    const on = await turns(["--otel-endpoint", url], n);
    const events = ctx.quick ? 20_000 : 200_000;
    const evOff = await flood([], events);
    const evOn = await flood(["--otel-endpoint", url], events);
    ctx.log(`  ${n} turns: p50 ${off.p50.toFixed(2)} → ${on.p50.toFixed(2)} ms, CPU/turn ${off.cpuPerTurn.toFixed(3)} → ${on.cpuPerTurn.toFixed(3)} ms; ${spans} spans received`);
    const rows: Row[] = [
      row({ section: "otel", metric: `turn p50 with span export vs without (${n} turns)`, unit: "ms", value: on.p50, baselineName: "no export", baseline: off.p50, target: { max: 1.1, text: "≤ 1.1×" } }),
      row({ section: "otel", metric: "sidecar CPU per turn with span export vs without", unit: "ms", value: on.cpuPerTurn, baselineName: "no export", baseline: off.cpuPerTurn }),
      row({ section: "otel", metric: `sidecar CPU per streamed event with span export vs without (${events} events)`, unit: "µs", value: evOn, baselineName: "no export", baseline: evOff, target: { max: 1.2, text: "≤ 1.2×" } }),
    ];
    return { rows, details: { n, off, on, spans, events, evOff, evOn } };
  } finally {
    server.close();
  }
}
