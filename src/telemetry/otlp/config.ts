// R-OTEL-1: where traces go — `serve --otel-endpoint URL` or the standard OTEL_EXPORTER_OTLP_*
// variables (OTLP/HTTP with JSON bodies). Read without loading any exporter code: serve
// imports the exporter only when this finds an endpoint.

export interface OtlpConfig {
  /** The traces URL (…/v1/traces). */
  tracesUrl: string;
  /** The metrics URL (…/v1/metrics); undefined when only a traces endpoint was given. */
  metricsUrl?: string;
  /** OTEL_METRIC_EXPORT_INTERVAL (default 60000 ms). */
  metricsIntervalMs: number;
  headers: Record<string, string>;
  serviceName: string;
  /** --otel-content: prompt and reply texts go into spans. */
  content: boolean;
}

/** The configuration, or undefined when export is not configured. */
export function otlpConfig(env: Readonly<Record<string, string | undefined>>, flags: { endpoint?: string; content?: boolean }): OtlpConfig | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = flags.endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return undefined;
  const tracesUrl = flags.endpoint !== undefined ? joinTraces(flags.endpoint) : traces || (base ? joinTraces(base) : undefined);
  if (!tracesUrl) return undefined;
  const u = new URL(tracesUrl); // throws on a malformed URL: a usage error for serve
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`the OTLP endpoint must be http(s)://, not ${u.protocol}`);
  const metricsBase = flags.endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const metricsUrl = env.OTEL_METRICS_EXPORTER === "none" ? undefined : env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || (metricsBase ? `${metricsBase.replace(/\/+$/, "")}/v1/metrics` : undefined);
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return {
    tracesUrl,
    ...(metricsUrl ? { metricsUrl } : {}),
    metricsIntervalMs: Number.isInteger(interval) && interval > 0 ? interval : 60_000,
    headers: parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS ?? ""),
    serviceName: env.OTEL_SERVICE_NAME || "a4aa",
    content: flags.content === true,
  };
}

function joinTraces(base: string): string {
  return `${base.replace(/\/+$/, "")}/v1/traces`;
}

/** `k1=v1,k2=v2`, values percent-decoded (the OTel spec's format). */
function parseHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    out[part.slice(0, eq).trim().toLowerCase()] = decodeURIComponent(part.slice(eq + 1).trim());
  }
  return out;
}
