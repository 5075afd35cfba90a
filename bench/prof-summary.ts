// `node dist/bench/prof-summary.js FILE.cpuprofile [TOP]`: self and total time per
// function of a --cpu-prof profile (what `npm run bench -- --cpu-prof` writes).
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: node dist/bench/prof-summary.js FILE.cpuprofile [TOP]\n");
  process.exit(2);
}
const prof = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; startTime: number; endTime: number; samples: number[] };
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const total = prof.samples.length;
const name = (n: Node) => `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*\/(dist|node_modules)\//, "$1/")}:${n.callFrame.lineNumber + 1}`;
const self = new Map<string, number>();
const incl = new Map<string, number>();
const counts = new Map<number, number>();
for (const s of prof.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
for (const [id, c] of counts) {
  const n = byId.get(id)!;
  self.set(name(n), (self.get(name(n)) ?? 0) + c);
  const seen = new Set<string>();
  for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
    const k = name(byId.get(x)!);
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + c);
  }
}
const top = Number(topArg ?? 25);
const pct = (c: number) => `${((100 * c) / total).toFixed(1).padStart(5)}%`;
process.stdout.write(`${total} samples, ${((prof.endTime - prof.startTime) / 1e6).toFixed(2)} s\n\nself:\n`);
for (const [k, c] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(c)}  ${k}\n`);
process.stdout.write(`\ntotal (inclusive):\n`);
for (const [k, c] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(c)}  ${k}\n`);
