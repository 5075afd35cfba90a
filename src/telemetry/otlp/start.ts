// The OTLP tracer and metrics, built from their configuration: imported by serve only when
// export is configured.
import type { Logger } from "../../log.js";
import type { Facts } from "../facts.js";
import type { OtlpConfig } from "./config.js";
import { OtlpExporter } from "./exporter.js";
import { OtlpMetrics } from "./metrics.js";
import { OtlpTracer } from "./tracer.js";

export function startTracing(
  config: OtlpConfig,
  o: { version: string; logger: Logger; redact: (s: string) => string; facts: Facts },
): { tracer: OtlpTracer; shutdown(): Promise<void> } {
  const common = { headers: config.headers, serviceName: config.serviceName, version: o.version, logger: o.logger };
  const exporter = new OtlpExporter({ url: config.tracesUrl, ...common });
  const metrics = config.metricsUrl ? new OtlpMetrics({ url: config.metricsUrl, intervalMs: config.metricsIntervalMs, facts: o.facts, ...common }) : undefined;
  o.logger.info(`exporting traces${metrics ? " and metrics" : ""} to ${new URL(config.tracesUrl).origin} (OTLP/HTTP JSON)${config.content ? ", with prompt and reply texts" : ""}`);
  return {
    tracer: new OtlpTracer(exporter, o.redact, config.content),
    shutdown: async () => {
      await Promise.all([exporter.flush(), metrics?.shutdown()]);
    },
  };
}
