// R-OTEL-1 metrics: the same numbers `/metrics` serves (the Facts through their prom-client
// registry), sent as OTLP/HTTP JSON every export interval and once more at shutdown:
// gauges as gauges, counters as cumulative monotonic sums, histograms as OTLP histograms.
import type { Logger } from "../../log.js";
import type { Facts } from "../facts.js";
import { PrometheusExporter } from "../prometheus.js";

interface PromValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}
interface PromMetric {
  name: string;
  help: string;
  type: string;
  values: PromValue[];
}

const attrs = (labels: Record<string, string | number>) =>
  Object.entries(labels).map(([key, v]) => ({ key, value: { stringValue: String(v) } }));

/** prom-client's JSON as OTLP metrics (exported for tests). */
export function toOtlpMetrics(metrics: PromMetric[], startNs: string, nowNs: string): unknown[] {
  const out: unknown[] = [];
  for (const m of metrics) {
    const point = (v: PromValue) => ({ attributes: attrs(v.labels), startTimeUnixNano: startNs, timeUnixNano: nowNs, asDouble: v.value });
    if (m.type === "gauge") out.push({ name: m.name, description: m.help, gauge: { dataPoints: m.values.map(point) } });
    else if (m.type === "counter") out.push({ name: m.name, description: m.help, sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: m.values.map(point) } });
    else if (m.type === "histogram") {
      // One data point per label set: prom-client gives cumulative `le` buckets, OTLP wants counts per bucket.
      const series = new Map<string, { labels: Record<string, string | number>; le: [number, number][]; sum: number; count: number }>();
      for (const v of m.values) {
        const { le, ...labels } = v.labels;
        const key = JSON.stringify(labels);
        const s = series.get(key) ?? { labels, le: [], sum: 0, count: 0 };
        series.set(key, s);
        if (v.metricName?.endsWith("_bucket") && le !== undefined && le !== "+Inf") s.le.push([Number(le), v.value]);
        else if (v.metricName?.endsWith("_sum")) s.sum = v.value;
        else if (v.metricName?.endsWith("_count")) s.count = v.value;
      }
      const dataPoints = [...series.values()].map((s) => {
        s.le.sort((a, b) => a[0] - b[0]);
        const counts: number[] = [];
        let prev = 0;
        for (const [, c] of s.le) {
          counts.push(c - prev);
          prev = c;
        }
        counts.push(s.count - prev);
        return { attributes: attrs(s.labels), startTimeUnixNano: startNs, timeUnixNano: nowNs, count: String(s.count), sum: s.sum, bucketCounts: counts.map(String), explicitBounds: s.le.map(([b]) => b) };
      });
      out.push({ name: m.name, description: m.help, histogram: { aggregationTemporality: 2, dataPoints } });
    }
  }
  return out;
}

export class OtlpMetrics {
  private readonly prom: PrometheusExporter;
  private readonly timer: NodeJS.Timeout;
  private readonly startNs = String(BigInt(Date.now()) * 1_000_000n);
  private lastWarn = 0;

  constructor(private readonly o: { url: string; headers: Record<string, string>; serviceName: string; version: string; intervalMs: number; facts: Facts; logger: Logger }) {
    this.prom = new PrometheusExporter(o.facts);
    this.timer = setInterval(() => void this.send(), o.intervalMs).unref();
  }

  async send(): Promise<void> {
    const metrics = toOtlpMetrics((await this.prom.registry.getMetricsAsJSON()) as unknown as PromMetric[], this.startNs, String(BigInt(Date.now()) * 1_000_000n));
    const body = JSON.stringify({
      resourceMetrics: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: this.o.serviceName } }, { key: "service.version", value: { stringValue: this.o.version } }] },
          scopeMetrics: [{ scope: { name: "a4aa", version: this.o.version }, metrics }],
        },
      ],
    });
    try {
      const res = await fetch(this.o.url, { method: "POST", headers: { ...this.o.headers, "content-type": "application/json" }, body, signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) this.warn(`the OTLP endpoint answered ${res.status} to the metrics`);
    } catch (e) {
      this.warn(`sending metrics to the OTLP endpoint failed: ${(e as Error).message}`);
    }
  }

  /** The last export, then nothing more. */
  async shutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.send();
    this.prom.close();
  }

  private warn(what: string): void {
    if (Date.now() - this.lastWarn < 60_000) return;
    this.lastWarn = Date.now();
    this.o.logger.warn(`${what}; check --otel-endpoint / OTEL_EXPORTER_OTLP_ENDPOINT`);
  }
}
