// Finished spans, batched and sent as OTLP/HTTP JSON (`POST …/v1/traces`). Bounded: at most
// MAX_QUEUED spans wait (the oldest are dropped and counted); a failed send is logged, never
// retried forever, never blocks a turn.
import type { Logger } from "../../log.js";

/** One attribute value as OTLP/JSON writes it. */
export type OtlpValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code: number; message?: string };
}

const MAX_QUEUED = 2048;
const BATCH = 256;
const FLUSH_MS = 1000;
const SEND_TIMEOUT_MS = 5000;

export class OtlpExporter {
  private queue: OtlpSpan[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private dropped = 0;
  private lastWarn = 0;

  constructor(
    private readonly o: { url: string; headers: Record<string, string>; serviceName: string; version: string; logger: Logger },
  ) {}

  add(span: OtlpSpan): void {
    this.queue.push(span);
    if (this.queue.length > MAX_QUEUED) {
      this.dropped += this.queue.length - MAX_QUEUED;
      this.queue.splice(0, this.queue.length - MAX_QUEUED);
    }
    if (this.queue.length >= BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Sends what is queued; resolves when every send so far has ended (or timed out). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length) {
      const batch = this.queue.splice(0, BATCH);
      this.sending = this.sending.then(() => this.send(batch));
    }
    return this.sending;
  }

  private async send(spans: OtlpSpan[]): Promise<void> {
    const body = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: this.o.serviceName } }, { key: "service.version", value: { stringValue: this.o.version } }] },
          scopeSpans: [{ scope: { name: "a4aa", version: this.o.version }, spans }],
        },
      ],
    });
    try {
      const res = await fetch(this.o.url, {
        method: "POST",
        headers: { ...this.o.headers, "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) this.warn(`the OTLP endpoint answered ${res.status} to ${spans.length} span(s)`);
    } catch (e) {
      this.warn(`sending ${spans.length} span(s) to the OTLP endpoint failed: ${(e as Error).message}`);
    }
  }

  private warn(what: string): void {
    const now = Date.now();
    if (now - this.lastWarn < 60_000) return;
    this.lastWarn = now;
    this.o.logger.warn(`${what}${this.dropped ? ` (${this.dropped} span(s) dropped so far: the queue was full)` : ""}; check --otel-endpoint / OTEL_EXPORTER_OTLP_ENDPOINT`);
  }
}
