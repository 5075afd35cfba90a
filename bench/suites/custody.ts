// 10. Credential custody (R-CUSTODY-1): what the egress proxy adds. A loopback upstream that
// answers with an SSE stream; time to the first byte directly and through the proxy (p50 of
// many requests), and the throughput of one large streamed answer through the proxy.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { CustodyProxy } from "../../src/custody/proxy.js";
import { createLogger } from "../../src/log.js";
import { row, type Row } from "../lib/report.js";
import { median, nowMs } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";

const CHUNK = Buffer.alloc(64 * 1024, "x");

async function firstByte(url: string): Promise<number> {
  const t0 = nowMs();
  const res = await fetch(url, { method: "POST", body: "{}" });
  const reader = res.body!.getReader();
  await reader.read();
  const ms = nowMs() - t0;
  await reader.cancel();
  return ms;
}

async function drain(url: string): Promise<{ bytes: number; ms: number }> {
  const t0 = nowMs();
  const res = await fetch(url, { method: "POST", body: "{}" });
  let bytes = 0;
  for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) bytes += c.length;
  return { bytes, ms: nowMs() - t0 };
}

export async function custodySuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const total = (ctx.quick ? 64 : 512) * 1024 * 1024;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (!req.url!.endsWith("/big")) {
        res.write("data: first\n\n");
        setTimeout(() => res.end("data: last\n\n"), 1);
        return;
      }
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += CHUNK.length;
          if (!res.write(CHUNK)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const direct = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const proxy = await CustodyProxy.start(createLogger("error"));
  try {
    // Counted as a session's traffic is (its own total and its agent's).
    const tallies = [0, 1].map(() => ({ requests: 0, requestBytes: 0, responseBytes: 0 }));
    const token = proxy.register({ sessionId: "bench", upstream: direct, keyHeader: "x-api-key", key: "sk-bench", tallies });
    const via = `${proxy.url}/s/${token}`;
    const n = ctx.quick ? 100 : 500;
    const d: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < n; i++) {
      d.push(await firstByte(`${direct}/v1/messages`));
      p.push(await firstByte(`${via}/v1/messages`));
    }
    const big = await drain(`${via}/big`);
    const mbps = big.bytes / 1e6 / (big.ms / 1000);
    const directBig = await drain(`${direct}/big`);
    ctx.log(`  first byte p50 ${median(d).toFixed(2)} → ${median(p).toFixed(2)} ms; ${(big.bytes / 1e6).toFixed(0)} MB through the proxy at ${mbps.toFixed(0)} MB/s (direct ${(directBig.bytes / 1e6 / (directBig.ms / 1000)).toFixed(0)} MB/s)`);
    const rows: Row[] = [
      row({ section: "custody", metric: `time to the first streamed byte through the proxy, added (p50 of ${n})`, unit: "ms", value: median(p) - median(d), target: { max: 5, text: "≤ 5 ms" } }),
      { ...row({ section: "custody", metric: "streamed answer through the proxy", unit: "MB/s", value: mbps, target: { text: "≥ 100 MB/s" } }), met: mbps >= 100 },
    ];
    return { rows, details: { n, directP50: median(d), proxyP50: median(p), big, directBig } };
  } finally {
    await proxy.close();
    server.close();
  }
}
