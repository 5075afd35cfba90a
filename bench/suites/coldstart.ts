// 5. Cold start: process start → first ping answered, for the real bin
// (`node dist/src/cli/main.js serve`), against `node -e` printing a line (the floor).
// The two alternate, so that both see the same machine.
import { SIDECAR_BIN, exited, sidecarNodeFlags, stop, track } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { nowMs, quantile } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";

function firstLine(start: () => ReturnType<typeof track>, input?: string): Promise<number> {
  const t0 = nowMs();
  const child = start();
  if (input) child.stdin!.write(input);
  return new Promise<number>((resolve, reject) => {
    let buf = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => {
      buf += d;
      if (buf.includes("\n")) {
        resolve(nowMs() - t0);
        void stop(child);
      }
    });
    void exited(child).then(() => reject(new Error(`exited before answering: ${buf.slice(0, 200)}`)));
  }).finally(() => stop(child));
}

export async function coldStartSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const runs = ctx.quick ? 3 : 30;
  const floor: number[] = [];
  const side: number[] = [];
  const ping = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}\n`;
  // One of each first, not counted: the file cache is warm for both.
  await firstLine(() => track({ cmd: process.execPath, args: ["-e", "console.log('ready')"] }));
  await firstLine(() => track({ cmd: process.execPath, args: [...sidecarNodeFlags, SIDECAR_BIN, "serve"] }), ping);
  for (let i = 0; i < runs; i++) {
    floor.push(await firstLine(() => track({ cmd: process.execPath, args: ["-e", "console.log('ready')"] })));
    side.push(await firstLine(() => track({ cmd: process.execPath, args: [...sidecarNodeFlags, SIDECAR_BIN, "serve"] }), ping));
  }
  const f = quantile(floor, 0.5);
  const s = quantile(side, 0.5);
  ctx.log(`  node -e p50 ${f.toFixed(1)} ms, a4aa serve → ping p50 ${s.toFixed(1)} ms`);
  const base = { baselineName: "node -e printing a line" };
  const rows: Row[] = [
    row({ section: "cold start", metric: `start → first ping answered, p50 (${runs} runs)`, unit: "ms", value: s, baseline: f, ...base, target: { below: 2.5, text: "< 2.5×" } }),
    row({ section: "cold start", metric: "start → first ping answered, min", unit: "ms", value: Math.min(...side), baseline: Math.min(...floor), ...base }),
  ];
  return { rows, details: { runs, floorMs: floor, sidecarMs: side } };
}
