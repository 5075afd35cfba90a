// The OTLP tracer, built from its configuration: imported by serve only when export is configured.
import type { Logger } from "../../log.js";
import type { OtlpConfig } from "./config.js";
import { OtlpExporter } from "./exporter.js";
import { OtlpTracer } from "./tracer.js";

export function startTracing(config: OtlpConfig, o: { version: string; logger: Logger; redact: (s: string) => string }): { tracer: OtlpTracer; shutdown(): Promise<void> } {
  const exporter = new OtlpExporter({ url: config.tracesUrl, headers: config.headers, serviceName: config.serviceName, version: o.version, logger: o.logger });
  o.logger.info(`exporting traces to ${new URL(config.tracesUrl).origin} (OTLP/HTTP JSON)${config.content ? ", with prompt and reply texts" : ""}`);
  return { tracer: new OtlpTracer(exporter, o.redact, config.content), shutdown: () => exporter.flush() };
}
