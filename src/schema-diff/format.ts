// How a diff and a gate decision read in a terminal (and as JSON for tools).
import type { Change, DiffResult, Verdict } from "./diff.js";
import type { GateResult } from "./versioning.js";

const LABEL: Record<Verdict, string> = {
  "breaking for hosts and sidecars": "BREAKING hosts+sidecars",
  "breaking for hosts": "BREAKING hosts",
  "breaking for sidecars": "BREAKING sidecars",
  warning: "warning",
  compatible: "compatible",
  docs: "docs",
};

function label(c: Change): string {
  return c.experimental ? "compatible (experimental)" : LABEL[c.verdict];
}

export function formatChange(c: Change, verbose = true): string {
  const head = `  ${label(c).padEnd(25)} ${c.rule.padEnd(22)} ${c.location}: ${c.detail}`;
  if (!verbose || c.verdict === "docs") return head;
  return [head, `      in: ${c.uses.join(", ")}`, ...c.why.map((w) => `      why: ${w}`)].join("\n");
}

export function summarize(d: DiffResult): string {
  if (!d.changes.length) return "no protocol changes";
  const count = (v: Verdict) => d.changes.filter((c) => c.verdict === v && !c.experimental).length;
  const parts = [
    [count("breaking for hosts and sidecars") + count("breaking for hosts"), "breaking for hosts"],
    [count("breaking for hosts and sidecars") + count("breaking for sidecars"), "breaking for sidecars"],
    [count("warning"), count("warning") === 1 ? "warning" : "warnings"],
    [count("compatible") + d.changes.filter((c) => c.experimental).length, "compatible"],
    [count("docs"), "docs"],
  ] as const;
  const n = d.changes.length;
  return `${n} change${n === 1 ? "" : "s"}: ${parts.filter(([k]) => k > 0).map(([k, s]) => `${k} ${s}`).join(", ")}; needs ${d.bump === "none" ? "no version bump" : `a ${d.bump} version bump`}`;
}

export function formatDiff(d: DiffResult, verbose = true): string {
  const lines = [`${d.old.label} (${d.old.version || "?"}) → ${d.new.label} (${d.new.version || "?"})`];
  for (const c of d.changes) lines.push(formatChange(c, verbose));
  lines.push(summarize(d));
  return `${lines.join("\n")}\n`;
}

export function formatGate(title: string, g: GateResult, verbose = true): string {
  const lines = [title];
  if (g.diff) {
    lines.push(`  ${g.diff.old.label} (${g.diff.old.version}) → ${g.diff.new.label} (${g.diff.new.version})`);
    for (const c of g.diff.changes) lines.push(formatChange(c, verbose).replace(/^/gm, "  "));
    lines.push(`  ${summarize(g.diff)}; version bump: ${g.actual}`);
  }
  for (const n of g.notes) lines.push(`  note: ${n}`);
  for (const p of g.problems) lines.push(`  FAIL: ${p}`);
  lines.push(g.ok ? "  ok" : "  failed");
  return `${lines.join("\n")}\n`;
}
