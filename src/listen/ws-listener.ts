// A ws:// or wss:// listener (R-REMOTE-1, -2, -7): the upgrade is checked (path, Origin,
// bearer token) before anything reaches JSON-RPC; one text frame is one JSON-RPC message or
// batch; pings keep a silent peer from holding its sessions. Plain HTTP requests get the
// fleet endpoints (R-REMOTE-8): /healthz, /readyz, /metrics; every other path is 404.
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Socket } from "node:net";
import { PassThrough } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { Logger } from "../log.js";
import type { Facts } from "../telemetry/facts.js";
import type { AcceptedLink, Listener } from "../server/server.js";
import type { ListenAddress } from "./address.js";
import { bearerToken, type TokenFile } from "./auth.js";
import { boundedOutput } from "./outbound.js";
import { MAX_BATCHED_CHARS, textFrames } from "./ws-frames.js";

export const DEFAULT_PING_INTERVAL_MS = 15_000;
export const DEFAULT_PONG_TIMEOUT_MS = 30_000;
/** WebSocket close code and reason for a connection past its outbound bound. */
export const SLOW_CONSUMER = { code: 1013, reason: "slow_consumer" } as const;

export interface WsListenerOptions {
  address: Extract<ListenAddress, { kind: "ws" | "wss" }>;
  logger: Logger;
  /** Required tokens (--auth-token-file); without it every upgrade is tenant "". */
  tokens?: TokenFile;
  /** --allow-origin: an upgrade carrying another Origin is refused 403. */
  allowOrigins: string[];
  tls?: { certFile: string; keyFile: string };
  maxLineBytes: number;
  maxOutboundBytes: number;
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
  /** R-REMOTE-8: what /readyz and /metrics read; without it both are 404. */
  fleet?: FleetEndpoints;
}

export interface FleetEndpoints {
  facts: Facts;
  /** The exporter behind /metrics (Prometheus text format). */
  metrics: { readonly contentType: string; metrics(): Promise<string> };
  /** `--metrics-public`: /metrics answers without the bearer token. */
  metricsPublic: boolean;
}

export class WsListener implements Listener {
  readonly address: string;
  private server: http.Server | https.Server | undefined;
  private wss: WebSocketServer | undefined;
  private readonly links = new Set<WebSocket>();
  private seq = 0;

  constructor(private readonly o: WsListenerOptions) {
    this.address = o.address.text;
  }

  /** The port actually bound (port 0 picks one). */
  get port(): number | undefined {
    const a = this.server?.address();
    return a && typeof a === "object" ? a.port : undefined;
  }

  start(accept: (link: AcceptedLink) => void): Promise<void> {
    const { o } = this;
    const server = o.tls
      ? https.createServer({ cert: readFileSync(o.tls.certFile), key: readFileSync(o.tls.keyFile) })
      : http.createServer();
    this.server = server;
    // Room for a frame just over the limit, to answer it frame_too_large like a long line;
    // a bigger one closes the connection (1009).
    const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxLineBytes + (1 << 20), perMessageDeflate: false });
    this.wss = wss;
    server.on("request", (req, res) => void this.request(req, res));
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on("error", () => undefined);
      const refuse = (status: number, text: string) => {
        socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${text}\n`);
      };
      const url = new URL(req.url ?? "/", "http://x");
      if (o.address.path && url.pathname !== o.address.path) return refuse(404, "no a4aa listener on this path");
      const origin = req.headers.origin;
      if (origin !== undefined && !o.allowOrigins.includes(origin)) {
        o.logger.warn(`refused a WebSocket upgrade from ${req.socket.remoteAddress}: Origin ${JSON.stringify(origin)} is not allowed (--allow-origin)`);
        return refuse(403, "this Origin is not allowed (--allow-origin)");
      }
      let tenant = "";
      if (o.tokens) {
        const bearer = bearerToken(req.headers.authorization);
        const t = bearer === undefined ? undefined : o.tokens.tenantOf(bearer);
        if (t === undefined) {
          o.logger.warn(`refused a WebSocket upgrade from ${req.socket.remoteAddress}: ${bearer === undefined ? "no Authorization: Bearer header" : "the bearer token matches no line of --auth-token-file"}`);
          return refuse(401, "authentication required: Authorization: Bearer TOKEN");
        }
        tenant = t;
      }
      wss.handleUpgrade(req, socket, head, (ws) => this.link(ws, req, tenant, accept));
    });
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(o.address.port, o.address.host, () => {
        server.off("error", reject);
        server.on("error", (e) => o.logger.error(`${this.address}: ${e.message}`));
        resolve();
      });
    });
  }

  /** A plain HTTP request: the fleet endpoints, 426 on the WebSocket path, else 404. */
  private async request(req: IncomingMessage, res: http.ServerResponse): Promise<void> {
    const { o } = this;
    const text = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers });
      res.end(req.method === "HEAD" ? undefined : body + "\n");
    };
    const pathname = new URL(req.url ?? "/", "http://x").pathname;
    const fleet = o.fleet;
    const endpoint = fleet && (pathname === "/healthz" || pathname === "/readyz" || pathname === "/metrics");
    if (!endpoint) {
      if (pathname === (o.address.path ?? "/")) return text(426, "a4aa speaks JSON-RPC over WebSocket here: upgrade the connection", { upgrade: "websocket" });
      return text(404, "not found: this a4aa listener answers /healthz, /readyz, /metrics and WebSocket upgrades");
    }
    if (req.method !== "GET" && req.method !== "HEAD") return text(405, "only GET", { allow: "GET, HEAD" });
    if (pathname === "/healthz") return text(200, "ok");
    if (pathname === "/readyz") {
      const why = fleet.facts.notReady();
      return why ? text(503, `not ready: ${why}`) : text(200, "ready");
    }
    if (o.tokens && !fleet.metricsPublic) {
      const bearer = bearerToken(req.headers.authorization);
      if (bearer === undefined || o.tokens.tenantOf(bearer) === undefined) {
        return text(401, "authentication required: Authorization: Bearer TOKEN (or serve with --metrics-public)", { "www-authenticate": "Bearer" });
      }
    }
    try {
      const body = await fleet.metrics.metrics();
      res.writeHead(200, { "content-type": fleet.metrics.contentType, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch (e) {
      o.logger.error(`${this.address}: /metrics failed: ${(e as Error).message}`);
      text(500, "metrics failed; see the sidecar's log");
    }
  }

  private link(ws: WebSocket, req: IncomingMessage, tenant: string, accept: (link: AcceptedLink) => void): void {
    const { o } = this;
    this.links.add(ws);
    const name = `ws#${++this.seq} ${req.socket.remoteAddress}:${req.socket.remotePort}${tenant ? ` (${tenant})` : ""}`;
    const input = new PassThrough();
    const output = boundedOutput(
      {
        send: (text) => {
          // What one turn of the loop sends leaves in one write: a streaming turn's events are
          // many small frames, each its own system call otherwise.
          const socket = (ws as unknown as { _socket?: Socket })._socket;
          if (socket && !socket.writableCorked) {
            socket.cork();
            process.nextTick(() => socket.uncork());
          }
          ws.send(text);
        },
        sendLines: (lines) => {
          // The frames of one write built into one buffer, one system call: a streaming turn's
          // events are many small frames (ws writes a header and a payload for each). Written
          // to the socket directly, in order with what ws writes itself (never compressed or
          // queued here: no permessage-deflate, no blobs). Big messages go through ws.
          const socket = (ws as unknown as { _socket?: Socket })._socket;
          if (ws.readyState !== ws.OPEN || !socket) return;
          let from = 0;
          for (let i = 0; i <= lines.length; i++) {
            if (i < lines.length && lines[i]!.length <= MAX_BATCHED_CHARS) continue;
            if (i > from) socket.write(textFrames(lines, from, i));
            if (i < lines.length) ws.send(lines[i]!);
            from = i + 1;
          }
        },
        pending: () => ws.bufferedAmount,
        slow: () => {
          o.logger.warn(`${name}: more than ${o.maxOutboundBytes} bytes waiting to be sent; closing it (${SLOW_CONSUMER.code} ${SLOW_CONSUMER.reason}), its sessions detach`);
          ws.close(SLOW_CONSUMER.code, SLOW_CONSUMER.reason);
          // Its sessions detach now (the end of its input ends the connection), not when the
          // closing handshake ends: the close frame waits behind what the peer has not read,
          // and a peer that reads nothing does not read it either.
          input.end();
          setTimeout(() => ws.terminate(), 5000).unref();
        },
      },
      o.maxOutboundBytes,
      true,
    );
    ws.on("message", (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      let buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      if (isBinary) o.logger.debug(`${name}: a binary frame, read as text`);
      // One frame is one message: a raw newline in JSON can only be whitespace, so it is
      // blanked, and the frame becomes one line.
      if (buf.includes(10) || buf.includes(13)) {
        buf = Buffer.from(buf);
        for (let i = 0; i < buf.length; i++) if (buf[i] === 10 || buf[i] === 13) buf[i] = 32;
      }
      input.write(buf);
      input.write("\n");
    });
    let lastPong = Date.now();
    ws.on("pong", () => (lastPong = Date.now()));
    const pongTimeout = o.pongTimeoutMs ?? DEFAULT_PONG_TIMEOUT_MS;
    const heartbeat = setInterval(() => {
      if (Date.now() - lastPong > pongTimeout) {
        o.logger.warn(`${name}: no pong for ${pongTimeout} ms; closing it, its sessions detach`);
        ws.terminate();
        return;
      }
      ws.ping();
    }, o.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS);
    heartbeat.unref();
    const ended = () => {
      clearInterval(heartbeat);
      this.links.delete(ws);
      input.end();
      output.destroy();
    };
    ws.on("close", ended);
    ws.on("error", (e) => {
      o.logger.info(`${name}: ${e.message}`);
      ended();
    });
    accept({ input, output, tenant, name, close: () => ws.close(1001, "the sidecar is shutting down") });
  }

  async close(): Promise<void> {
    for (const ws of this.links) ws.close(1001, "the sidecar is shutting down");
    const server = this.server;
    this.wss?.close();
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Idle keep-alive HTTP connections (/healthz, /metrics scrapers) would hold close() up.
      server.closeIdleConnections?.();
      // Links that do not finish their closing handshake promptly are cut.
      setTimeout(() => {
        for (const ws of this.links) ws.terminate();
        server.closeAllConnections?.();
      }, 2000).unref();
    });
  }
}
