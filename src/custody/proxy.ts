// R-CUSTODY-1: the sidecar's loopback egress proxy. An agent opened with custody gets the
// proxy as its API base URL and a placeholder key; a per-session token travels in the URL
// (`/s/<token>/…`) or, for an agent told its base URL on the command line, as the key itself
// (`a4aa-custody-<token>`). Each request under a live token is forwarded to that session's
// upstream with the real key put in the header its API reads (the placeholder and any other
// key header removed). Responses stream through as they come (SSE is never buffered); request
// bodies are bounded. A missing, unknown or released token is refused 403 before anything is
// forwarded.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../log.js";
import type { CustodyTraffic } from "../telemetry/facts.js";
import { upstreamAgent } from "./upstream.js";

export interface CustodyRoute {
  sessionId: string;
  /** The API base URL requests go to (path prefix kept). */
  upstream: string;
  /** The header the key travels in (lower case). */
  keyHeader: string;
  keyPrefix?: string;
  key: string;
  /** Added to by every request of the session (its own count, its agent's in the facts). */
  tallies?: CustodyTraffic[];
}

/** The largest request body forwarded (a prompt with images and a long history fits). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** What an agent holds as its key when the key is the session's token. */
export const TOKEN_KEY_PREFIX = "a4aa-custody-";
/** Headers that carry keys, whatever the API: an agent's placeholder never goes upstream. */
const KEY_HEADERS = ["x-api-key", "authorization", "x-goog-api-key", "api-key"];
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "te", "trailer"]);
const IN_PATH = /^\/s\/([0-9a-f]{48})(\/[^?]*)?(\?.*)?$/;
const IN_KEY = new RegExp(`^(?:bearer\\s+)?${TOKEN_KEY_PREFIX}([0-9a-f]{48})$`, "i");

/** The session's token and the request's path and query below it, from the URL or the key. */
function tokenOf(req: http.IncomingMessage): { token: string; rest: string; query: string } | undefined {
  const url = req.url ?? "/";
  const m = IN_PATH.exec(url);
  if (m) return { token: m[1]!, rest: m[2] ?? "/", query: m[3] ?? "" };
  const q = url.indexOf("?");
  const [rest, query] = q < 0 ? [url, ""] : [url.slice(0, q), url.slice(q)];
  const keys = KEY_HEADERS.map((h) => req.headers[h]).concat(new URLSearchParams(query).get("key") ?? undefined);
  for (const k of keys) {
    const t = typeof k === "string" ? IN_KEY.exec(k.trim()) : null;
    if (t) return { token: t[1]!.toLowerCase(), rest, query };
  }
  return undefined;
}

export class CustodyProxy {
  private readonly routes = new Map<string, CustodyRoute>();
  private readonly bySession = new Map<string, string>();
  /** Requests refused for a missing, unknown or released token. */
  refused = 0;

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
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
    self = new CustodyProxy(server, (server.address() as AddressInfo).port, logger);
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A new token for `route`: the agent's base URL is `${url}/s/${token}`, or its key `a4aa-custody-${token}`. */
  register(route: CustodyRoute): string {
    this.release(route.sessionId);
    const token = randomBytes(24).toString("hex");
    this.routes.set(token, route);
    this.bySession.set(route.sessionId, token);
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
    const at = tokenOf(req);
    const route = at ? this.routes.get(at.token) : undefined;
    if (!at || !route) {
      this.refused++;
      req.resume();
      res.writeHead(403, { "content-type": "text/plain" }).end("a4aa custody proxy: no session has this token (closed, or never opened)\n");
      return;
    }
    const tallies = route.tallies ?? [];
    for (const t of tallies) t.requests++;
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      res.writeHead(413, { "content-type": "text/plain" }).end(`a4aa custody proxy: request body over ${MAX_BODY_BYTES} bytes\n`);
      return;
    }
    const base = new URL(route.upstream);
    const target = new URL(`${base.pathname.replace(/\/+$/, "")}${at.rest}${at.query}`, base);
    // A key in the query (`?key=`, Gemini's REST style) is the placeholder: it never goes upstream.
    target.searchParams.delete("key");
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && !KEY_HEADERS.includes(k) && v !== undefined) headers[k] = v;
    headers[route.keyHeader] = `${route.keyPrefix ?? ""}${route.key}`;
    headers.host = target.host;
    const { request, agent } = upstreamAgent(target.protocol);
    let size = 0;
    /** Set once nothing more goes upstream (a body over the bound, a failed upstream): the rest is read and dropped, so the agent gets to read the answer. */
    let dropBody = false;
    const up = request(target, { method: req.method, headers, agent }, (upRes) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(upRes.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
      res.writeHead(upRes.statusCode ?? 502, out);
      res.flushHeaders();
      upRes.on("data", (c: Buffer) => {
        for (const t of tallies) t.responseBytes += c.length;
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
      dropBody = true;
      req.resume();
      if (res.writableEnded) return; // answered already (a body over the bound)
      this.logger.warn(`custody proxy: ${route.sessionId}: the upstream ${target.origin} failed: ${e.message}`, route.sessionId);
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(`a4aa custody proxy: the upstream ${target.origin} failed: ${e.message}\n`);
      else res.destroy();
    });
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
    });
    req.on("data", (c: Buffer) => {
      if (dropBody) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        dropBody = true;
        up.destroy();
        if (!res.headersSent) res.writeHead(413, { "content-type": "text/plain" }).end(`a4aa custody proxy: request body over ${MAX_BODY_BYTES} bytes\n`);
        req.resume();
        return;
      }
      for (const t of tallies) t.requestBytes += c.length;
      if (!up.write(c)) {
        req.pause();
        up.once("drain", () => req.resume());
      }
    });
    req.on("end", () => {
      if (!dropBody) up.end();
    });
  }
}
