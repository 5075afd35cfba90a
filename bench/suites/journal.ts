// 6. The journal (R-SEQ-1, session/history): N sessions streaming at once on the flood
// agent, each M events; the sidecar's RSS growth while every session's journal holds its
// events, per session and per journaled event, and session/history's latency for a full
// page. The bound per session is 10,000 events or 64 MiB: the last row extrapolates the
// measured cost per event to a session at that bound.
import { MiB, memBytes, settledSidecar, sleep, stop } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { floodSpec } from "../lib/specs.js";
import { nowMs } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";

export async function journalSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const n = ctx.quick ? 30 : 500;
  const m = ctx.quick ? 500 : 2_000;
  const size = 64;
  const { side, conn, rssBefore } = await settledSidecar(n);
  try {
    const ids = await Promise.all(Array.from({ length: n }, async () => (await conn.ok("session/open", { spec: floodSpec() })).sessionId as string));
    await sleep(300);
    const rssOpen = memBytes(side.pid!, "VmRSS");
    const t0 = nowMs();
    await Promise.all(ids.map((sessionId) => conn.ok("session/prompt", { sessionId, text: `flood:${m}:${size}` })));
    const streamMs = nowMs() - t0;
    await sleep(500);
    const rssAfter = memBytes(side.pid!, "VmRSS");
    const h0 = nowMs();
    const h = await conn.ok("session/history", { sessionId: ids[0] });
    const historyMs = nowMs() - h0;
    if (h.lastSeq < m || h.events.length !== Math.min(h.lastSeq, 10_000)) throw new Error(`history of ${ids[0]}: ${h.events.length} events, lastSeq ${h.lastSeq}`);
    const events = n * m;
    const perEvent = (rssAfter - rssOpen) / events;
    ctx.log(`  ${n} sessions × ${m} events in ${streamMs.toFixed(0)} ms; RSS ${(rssBefore / MiB).toFixed(0)} → ${(rssOpen / MiB).toFixed(0)} → ${(rssAfter / MiB).toFixed(0)} MiB`);
    const rows: Row[] = [
      row({ section: "journal", metric: `${n} sessions × ${m} events: journal RSS per session`, unit: "MiB", value: (rssAfter - rssOpen) / n / MiB }),
      row({ section: "journal", metric: "journal RSS per event kept", unit: "bytes", value: perEvent }),
      row({ section: "journal", metric: "a session at the 10,000-event bound (extrapolated)", unit: "MiB", value: (perEvent * 10_000) / MiB }),
      row({ section: "journal", metric: `session/history, ${h.events.length} events`, unit: "ms", value: historyMs }),
    ];
    await stop(side, 60_000);
    return { rows, details: { n, m, size, rssBefore, rssOpen, rssAfter, streamMs, historyMs } };
  } finally {
    await stop(side, 5_000);
  }
}
