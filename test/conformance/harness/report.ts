// What a run prints: each failure with its requirement, wire transcript and stderr tail;
// the coverage table (requirement → checks → result); a JSON report for machines.
import type { Requirement } from "../registry.js";
import type { CheckResult } from "./runner.js";
import type { TranscriptEntry } from "./wire.js";

export type ReqResult = "pass" | "fail" | "n/a" | "uncovered" | "warn";

export interface RequirementReport extends Requirement {
  checks: { id: string; status: string }[];
  result: ReqResult;
}

export function judge(reqs: Requirement[], results: CheckResult[], allChecks: Map<string, string[]>): RequirementReport[] {
  return reqs.map((r) => {
    const mine = results.filter((c) => c.covers.includes(r.id));
    const known = [...allChecks.entries()].filter(([, covers]) => covers.includes(r.id));
    let result: ReqResult;
    if (!known.length) result = "uncovered";
    else if (mine.some((c) => c.status === "fail")) result = r.tier === "advisory" ? "warn" : "fail";
    else if (mine.length && mine.every((c) => c.status === "skip")) result = "n/a";
    else result = "pass";
    return { ...r, checks: mine.map((c) => ({ id: c.id, status: c.status })), result };
  });
}

const HEAD = 40;
const TAIL = 80;
const RUN_KEEP_HEAD = 3;
const RUN_KEEP_TAIL = 2;

const isEvent = (e: TranscriptEntry) => e.dir === "recv" && e.text.includes('"method":"session/event"');

/** Long runs of session/event lines shrink to their ends, so requests and answers stay visible. */
function formatEntries(entries: TranscriptEntry[]): string[] {
  const fmt = (e: TranscriptEntry) => `    ${String(e.t).padStart(6)}ms ${e.dir === "send" ? "host →" : e.dir === "recv" ? "     ←" : "     #"} ${e.text}`;
  const lines: string[] = [];
  for (let i = 0; i < entries.length; ) {
    let j = i;
    while (j < entries.length && isEvent(entries[j])) j++;
    const run = j - i;
    if (run > RUN_KEEP_HEAD + RUN_KEEP_TAIL + 1) {
      lines.push(...entries.slice(i, i + RUN_KEEP_HEAD).map(fmt));
      lines.push(`    … ${run - RUN_KEEP_HEAD - RUN_KEEP_TAIL} more session/event lines …`);
      lines.push(...entries.slice(j - RUN_KEEP_TAIL, j).map(fmt));
      i = j;
    } else if (run > 0) {
      lines.push(...entries.slice(i, j).map(fmt));
      i = j;
    } else lines.push(fmt(entries[i++]));
  }
  if (lines.length <= HEAD + TAIL) return lines;
  return [...lines.slice(0, HEAD), `    … ${lines.length - HEAD - TAIL} lines omitted …`, ...lines.slice(-TAIL)];
}

export function formatFailure(r: CheckResult, reqs: Map<string, Requirement>): string {
  const out: string[] = [];
  out.push(`✗ ${r.id} — ${r.title} (${r.ms} ms)`);
  for (const id of r.covers) {
    const q = reqs.get(id);
    if (q) out.push(`  requirement ${id} [${q.tier}]: ${q.text}`);
  }
  out.push(`  failure: ${(r.error ?? "").split("\n").join("\n  ")}`);
  for (const p of r.processes) {
    out.push(`  process: ${p.argv.join(" ")} → ${p.exit ? `exit ${p.exit.code ?? p.exit.signal}` : "still running (killed)"}`);
    out.push(`  wire transcript (${p.transcript.length} lines; → host to implementation, ← back, # notes):`);
    out.push(...formatEntries(p.transcript));
    const tail = p.stderrTail.trimEnd().split("\n").slice(-25);
    out.push(`  stderr tail:`);
    out.push(...(tail.length && tail[0] ? tail.map((l) => `    | ${l.slice(0, 300)}`) : ["    (empty)"]));
  }
  return out.join("\n");
}

const MARK: Record<string, string> = { pass: "✓", fail: "✗", skip: "–" };

export function formatTable(reports: RequirementReport[]): string {
  const rows = reports.map((r) => [r.id, r.tier, r.result, r.checks.map((c) => `${MARK[c.status]} ${c.id.slice(c.id.indexOf("/") + 1)}`).join(", ") || "—"]);
  const header = ["REQUIREMENT", "TIER", "RESULT", "CHECKS"];
  const w = [0, 1, 2].map((i) => Math.max(header[i].length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 3 ? c.padEnd(w[i]) : c)).join("  ");
  return [line(header), line(w.map((n) => "-".repeat(n)).concat("------")), ...rows.map(line)].join("\n");
}
