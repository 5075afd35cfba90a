// R-CUSTODY-1: the sidecar's loopback egress proxy. An agent opened with custody gets
// `http://127.0.0.1:<port>/s/<token>` as its API base URL and a placeholder key; each
// request under a live token is forwarded to that session's upstream with the real key put
// in the header its API reads (the placeholder and any other key header removed). Responses
// stream through as they come (SSE is never buffered); request bodies are bounded. A missing,
// unknown or released token is refused 403 before anything is forwarded.
import { randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { Logger } from "../log.js";

export interface CustodyRoute {
  sessionId: string;
  /** The API base URL requests go to (path prefix kept). */
  upstream: string;
  /** The header the key travels in (lower case). */
  keyHeader: string;
  keyPrefix?: string;
  key: string;
}

/** The largest request body forwarded (a prompt with images and a long history fits). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Headers that carry keys, whatever the API: an agent's placeholder never goes upstream. */
const KEY_HEADERS = ["x-api-key", "authorization", "x-goog-api-key", "api-key"];
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "te", "trailer"]);

export class CustodyProxy {
  private readonly routes = new Map<string, CustodyRoute>();
  private readonly bySession = new Map<string, string>();
  /** Requests and response bytes per session (the open's facts). */
  readonly counts = new Map<string, { requests: number; bytes: number }>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly logger: Logger,
  ) {}

  static async start(logger: Logger): Promise<CustodyProxy> {
    let self: CustodyProxy | undefined;
    const server = http.createServer((req, res) => self!.handle(req, res));
    server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    server.unref();
    self = new CustodyProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logger);
    return self;
  }

  /** A new token for `route`; the agent's base URL is `${url}/s/${token}`. */
  register(route: CustodyRoute): string {
    this.release(route.sessionId);
    const token = randomBytes(24).toString("hex");
    this.routes.set(token, route);
    this.bySession.set(route.sessionId, token);
    this.counts.set(route.sessionId, { requests: 0, bytes: 0 });
    return token;
  }

  /** The session's token stops working (its close). */
  release(sessionId: string): void {
    const token = this.bySession.get(sessionId);
    if (token === undefined) return;
    this.bySession.delete(sessionId);
    this.routes.delete(token);
  }

  close(): Promise<void> {
    this.routes.clear();
    this.bySession.clear();
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const m = /^\/s\/([0-9a-f]{48})(\/[^?]*)?(\?.*)?$/.exec(req.url ?? "");
    const route = m ? this.routes.get(m[1]!) : undefined;
    if (!m || !route) {
      req.resume();
      res.writeHead(403, { "content-type": "text/plain" }).end("a4aa custody proxy: no session has this token (closed, or never opened)\n");
      return;
    }
    const count = this.counts.get(route.sessionId);
    if (count) count.requests++;
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      res.writeHead(413, { "content-type": "text/plain" }).end(`a4aa custody proxy: request body over ${MAX_BODY_BYTES} bytes\n`);
      return;
    }
    const base = new URL(route.upstream);
    const target = new URL(`${base.pathname.replace(/\/+$/, "")}${m[2] ?? "/"}${m[3] ?? ""}`, base);
    // A key in the query (`?key=`, Gemini's REST style) is the placeholder: it never goes upstream.
    target.searchParams.delete("key");
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && !KEY_HEADERS.includes(k) && v !== undefined) headers[k] = v;
    headers[route.keyHeader] = `${route.keyPrefix ?? ""}${route.key}`;
    headers.host = target.host;
    const send = target.protocol === "https:" ? https.request : http.request;
    const up = send(target, { method: req.method, headers }, (upRes) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(upRes.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
      res.writeHead(upRes.statusCode ?? 502, out);
      res.flushHeaders();
      upRes.on("data", (c: Buffer) => {
        if (count) count.bytes += c.length;
        // Written as it comes: a streamed (SSE) answer reaches the agent chunk by chunk.
        if (!res.write(c)) {
          upRes.pause();
          res.once("drain", () => upRes.resume());
        }
      });
      upRes.on("end", () => res.end());
      upRes.on("error", () => res.destroy());
    });
    up.on("error", (e) => {
      this.logger.warn(`custody proxy: ${route.sessionId}: the upstream ${target.origin} failed: ${e.message}`, route.sessionId);
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(`a4aa custody proxy: the upstream ${target.origin} failed: ${e.message}\n`);
      else res.destroy();
    });
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
    });
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        up.destroy();
        if (!res.headersSent) res.writeHead(413, { "content-type": "text/plain" }).end(`a4aa custody proxy: request body over ${MAX_BODY_BYTES} bytes\n`);
        req.destroy();
        return;
      }
      if (!up.write(c)) {
        req.pause();
        up.once("drain", () => req.resume());
      }
    });
    req.on("end", () => up.end());
  }
}
