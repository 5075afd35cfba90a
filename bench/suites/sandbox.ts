// 11. The sandbox (R-SANDBOX-1): what session/open costs sandboxed against unsandboxed, for
// the same agent (the flood agent, a node ACP agent) in one sidecar, the three kinds
// alternating so that all see the same machine: unsandboxed, {filesystem: cwd, network:
// none} (bubblewrap and the private folder) and {cwd, model} (plus the forwarder, a second
// node process inside, and the host end of the model route). Each open is closed at once.
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Conn } from "../lib/ndjson.js";
import { startSidecar, stop } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { floodSpec } from "../lib/specs.js";
import { nowMs, quantile } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";
import { probe } from "../../src/sandbox/support.js";

const KINDS = {
  unsandboxed: undefined,
  none: { filesystem: "cwd", network: "none" },
  model: { filesystem: "cwd", network: "model" },
} as const;
type Kind = keyof typeof KINDS;

export async function sandboxSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const support = await probe(process.env);
  if (!support.available) {
    ctx.log(`  skipped: ${support.detail}`);
    return { rows: [], details: { skipped: support.detail } };
  }
  const n = ctx.quick ? 5 : 40;
  const server = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const cwd = mkdtempSync(path.join(os.tmpdir(), "a4aa-bench-sandbox-"));
  const side = startSidecar(["--sandbox-model-endpoint", `127.0.0.1:${(server.address() as AddressInfo).port}`]);
  try {
    const conn = new Conn(side.stdin!, side.stdout!);
    await conn.ok("ping", {});
    const lat: Record<Kind, number[]> = { unsandboxed: [], none: [], model: [] };
    const open = async (kind: Kind): Promise<number> => {
      const sandbox = KINDS[kind];
      const t0 = nowMs();
      const { sessionId } = await conn.ok("session/open", { spec: floodSpec(), cwd, ...(sandbox ? { options: { sandbox } } : {}) });
      const ms = nowMs() - t0;
      await conn.ok("session/close", { sessionId });
      return ms;
    };
    // One of each first, not counted (the probe, the file cache).
    for (const k of Object.keys(KINDS) as Kind[]) await open(k);
    for (let i = 0; i < n; i++) for (const k of Object.keys(KINDS) as Kind[]) lat[k].push(await open(k));
    const p50 = (k: Kind) => quantile(lat[k], 0.5);
    ctx.log(`  session/open p50: unsandboxed ${p50("unsandboxed").toFixed(1)} ms, {cwd, none} ${p50("none").toFixed(1)} ms, {cwd, model} ${p50("model").toFixed(1)} ms (${n} each)`);
    const base = { baseline: p50("unsandboxed"), baselineName: "the same open unsandboxed" };
    const rows: Row[] = [
      row({ section: "sandbox", metric: `session/open sandboxed {cwd, none}, p50 of ${n}`, unit: "ms", value: p50("none"), ...base, target: { max: 1.3, text: "≤ 1.3×" } }),
      row({ section: "sandbox", metric: `session/open sandboxed {cwd, model}, p50 of ${n}`, unit: "ms", value: p50("model"), ...base, target: { max: 1.3, text: "≤ 1.3×" } }),
    ];
    return { rows, details: { n, latencyMs: lat } };
  } finally {
    await stop(side, 10_000);
    server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}
