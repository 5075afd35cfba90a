// A loopback OTLP/HTTP receiver for tests: keeps every JSON body POSTed to /v1/traces and
// /v1/metrics, decodes spans, answers 200.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface OtlpReceiver {
  url: string;
  /** Raw bodies by path, in arrival order. */
  bodies: { path: string; body: string }[];
  spans(): any[];
  /** Every byte received, for greps (R-OTEL-3). */
  raw(): string;
  close(): Promise<void>;
}

export async function otlpReceiver(): Promise<OtlpReceiver> {
  const bodies: { path: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d));
    req.on("end", () => {
      if (req.headers["content-type"] === "application/json") bodies.push({ path: req.url ?? "", body });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spans: () =>
      bodies
        .filter((b) => b.path === "/v1/traces")
        .flatMap((b) => JSON.parse(b.body).resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans))),
    raw: () => bodies.map((b) => b.body).join("\n"),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** An OTLP attribute's value, as a plain string/number/boolean (int64 stays a string). */
export function attr(span: any, key: string): unknown {
  const a = span.attributes.find((x: any) => x.key === key)?.value;
  return a ? (a.stringValue ?? a.intValue ?? a.doubleValue ?? a.boolValue) : undefined;
}
