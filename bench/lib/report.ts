// One figure of the report: the sidecar's value, its baseline, the ratio, the target.
export interface Row {
  /** Section of the table (ping, streaming, …). */
  section: string;
  metric: string;
  unit: string;
  value: number;
  baselineName?: string;
  baseline?: number;
  /**
   * Cost ratio: how many times the sidecar's cost is the baseline's (latency, time, memory:
   * value / baseline; throughput: baseline / value). Below 1 the sidecar is cheaper.
   */
  ratio?: number;
  /** The target on the ratio (or on the value when there is no baseline): at most `max`, or below `below`. */
  target?: { max?: number; below?: number; text: string };
  met?: boolean;
  note?: string;
}

export interface SuiteResult {
  name: string;
  rows: Row[];
  /** Raw measurements, for the JSON file. */
  details: Record<string, unknown>;
  error?: string;
  seconds: number;
}

/** Fills ratio and met. `higherIsBetter`: value and baseline are throughputs. */
export function row(r: Omit<Row, "ratio" | "met">, higherIsBetter = false): Row {
  const out: Row = { ...r };
  if (r.baseline !== undefined && r.baseline > 0 && r.value > 0) {
    out.ratio = higherIsBetter ? r.baseline / r.value : r.value / r.baseline;
  }
  if (r.target) {
    const x = out.ratio ?? r.value;
    if (r.target.max !== undefined) out.met = x <= r.target.max;
    else if (r.target.below !== undefined) out.met = x < r.target.below;
  }
  return out;
}

function fmt(x: number | undefined, unit = ""): string {
  if (x === undefined || Number.isNaN(x)) return "—";
  const a = Math.abs(x);
  const s = a >= 1000 ? Math.round(x).toLocaleString("en-US") : a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toFixed(3);
  return unit ? `${s} ${unit}` : s;
}

export function markdownTable(suites: SuiteResult[]): string {
  const lines = [
    "| section | figure | a4aa serve | baseline | baseline value | ratio | target | met |",
    "| --- | --- | ---: | --- | ---: | ---: | --- | :---: |",
  ];
  for (const s of suites) {
    if (s.error) lines.push(`| ${s.name} | **failed** | ${s.error.replace(/\|/g, "/").replace(/\n/g, " ").slice(0, 200)} | | | | | ✗ |`);
    for (const r of s.rows) {
      lines.push(
        `| ${r.section} | ${r.metric} | ${fmt(r.value, r.unit)} | ${r.baselineName ?? "—"} | ${fmt(r.baseline, r.baseline !== undefined ? r.unit : "")} | ${r.ratio !== undefined ? `${fmt(r.ratio)}×` : "—"} | ${r.target?.text ?? ""} | ${r.met === undefined ? "" : r.met ? "✓" : "✗"} |`,
      );
    }
  }
  return lines.join("\n");
}
