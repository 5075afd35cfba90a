// The remote client (R-REMOTE-10): one WebSocket to a sidecar's `--listen` address, one
// JSON-RPC message a text frame, a bearer token on the upgrade. A lost connection is
// reconnected with backoff; every session the client had is attached again from the last
// `seq` it delivered, and requests in flight that carry an operationId (R-REMOTE-6) are sent
// again, so a session's events() goes on with no gap and no duplicate.
import { randomUUID } from "node:crypto";
import type WebSocket from "ws";
import type { SessionEventParams } from "../../generated/ts/types.js";
import { MAX_JSON_DEPTH, parseJsonChecked } from "../../src/transport/depth.js";
import { JsonRpcPeer, RpcResponseError, type RequestOptions } from "../../src/transport/json-rpc.js";
import { ClientCore, PROMPT, type CommonOptions } from "./core.js";
import { A4aaError } from "./errors.js";

export interface ReconnectOptions {
  /** Connection attempts after a loss before giving up. Default 10. */
  maxAttempts?: number;
  /** Longest time spent reconnecting after one loss. Default 60000 ms. */
  maxTimeMs?: number;
  /** The first wait; it doubles each attempt (with jitter: 50–100 % of it). Default 100 ms. */
  initialDelayMs?: number;
  /** The longest wait between attempts. Default 5000 ms. */
  maxDelayMs?: number;
}

export interface RemoteOptions extends CommonOptions {
  /** Sent as `Authorization: Bearer TOKEN` (`--auth-token-file`). */
  token?: string;
  /** Other headers of the upgrade request (e.g. `Origin`). */
  headers?: Record<string, string>;
  /** How long one connection attempt may take. Default 10000 ms. */
  connectTimeoutMs?: number;
  reconnect?: ReconnectOptions;
  /** Incoming messages larger than this close the connection (the ws limit). Default 1 GiB. */
  maxMessageBytes?: number;
  /** Told each loss and each reconnection, for the person reading the log; default: this process's stderr. */
  onLog?: (text: string) => void;
  /**
   * A WebSocket ping this often (default 15000 ms); a connection from which nothing (no pong,
   * no message) arrives for `pongTimeoutMs` (default 30000) is taken as lost and reconnected.
   * A network that drops packets without closing anything is noticed only this way.
   */
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
}

const OPEN = "session/open";
const ATTACH = "session/attach";

/** The connection a request was on ended (internal: the request is sent again or fails peer_closed). */
class Lost extends Error {}

/** The sidecar refused the upgrade (401 / 403): reconnecting cannot help. */
class Refused extends Error {}

/**
 * A client of a sidecar reached over the network. `A4aaClient.connect(url, {token})` makes
 * one; it has the same calls and events() as the spawned client. `session/open` and
 * `session/prompt` sent by the typed methods get an operationId (a UUID) unless they carry
 * one; `call()` sends its params as they are.
 */
export class RemoteClient extends ClientCore {
  readonly url: string;
  private readonly opts: RemoteOptions;
  private ws: WebSocket | null = null;
  private peer: JsonRpcPeer | null = null;
  /** While reconnecting: resolves with the new link once every session is attached again. */
  private reconnecting: Promise<JsonRpcPeer> | null = null;
  /** Every session this client has, with the last `seq` it delivered (0: none yet). */
  private readonly sessions = new Map<string, number>();
  private closing = false;
  /** Connections made after a loss (for tests and logs). */
  reconnects = 0;

  private constructor(url: string, opts: RemoteOptions) {
    super(opts);
    this.url = url;
    this.opts = opts;
  }

  static async connect(url: string, opts: RemoteOptions = {}): Promise<RemoteClient> {
    const c = new RemoteClient(url, opts);
    try {
      c.peer = await c.open();
    } catch (e) {
      throw A4aaError.peerClosed(false, e instanceof Error ? e.message : String(e));
    }
    return c;
  }

  /** The sessions the client would attach again after a loss, with the last seq it delivered. */
  knownSessions(): Map<string, number> {
    return new Map(this.sessions);
  }

  /** Drops what was already delivered (a replay after attach overlaps the live stream at most once). */
  protected override deliver(p: SessionEventParams): void {
    const last = this.sessions.get(p.sessionId);
    if (typeof p.seq === "number") {
      if (last !== undefined && p.seq <= last) return;
      this.sessions.set(p.sessionId, p.seq);
    } else if (last === undefined) this.sessions.set(p.sessionId, 0);
    super.deliver(p);
  }

  protected override withOperationId(method: string, params: unknown): unknown {
    if ((method !== OPEN && method !== PROMPT) || !params || typeof params !== "object") return params;
    const p = params as { operationId?: unknown };
    return p.operationId === undefined ? { ...p, operationId: randomUUID() } : params;
  }

  protected async transmit(method: string, params: unknown, opts: RequestOptions): Promise<unknown> {
    const operationId = (params as { operationId?: unknown } | null)?.operationId;
    const track = (m: Record<string, unknown>) => {
      opts.onAnswer?.(m);
      if (!("error" in m)) this.track(method, params, m.result);
    };
    for (let attempt = 1; ; attempt++) {
      let peer: JsonRpcPeer;
      try {
        peer = await this.link(opts.signal);
      } catch (e) {
        // Gave up reconnecting: a request sent before the loss may have acted.
        if (attempt > 1 && e instanceof A4aaError && e.code === "peer_closed") throw A4aaError.peerClosed(true, this.ended ?? e.message);
        throw e;
      }
      try {
        const result = await peer.request(method, params, { ...opts, onAnswer: track });
        // A repeated open answers the first one's session, which this connection is not attached to.
        if (attempt > 1 && method === OPEN) await this.attach(peer, (result as { sessionId: string }).sessionId);
        return result;
      } catch (e) {
        if (!(e instanceof Lost)) throw e;
        if (typeof operationId !== "string") {
          throw A4aaError.peerClosed(true, `${e.message}; ${method} was in flight and carried no operationId, so it is not sent again`);
        }
      }
    }
  }

  /** Keeps the session list as calls succeed (synchronously, before the events that follow an answer). */
  private track(method: string, params: unknown, result: unknown): void {
    const sessionId = (result as { sessionId?: unknown } | null)?.sessionId ?? (params as { sessionId?: unknown } | null)?.sessionId;
    if (typeof sessionId !== "string") return;
    if (method === OPEN && !this.sessions.has(sessionId)) this.sessions.set(sessionId, 0);
    else if (method === ATTACH) {
      // The app asked for the events after afterSeq (default: none before now).
      const after = (params as { afterSeq?: unknown }).afterSeq;
      this.sessions.set(sessionId, typeof after === "number" ? after : ((result as { lastSeq?: number }).lastSeq ?? 0));
    } else if (method === "session/close" || method === "session/detach") this.sessions.delete(sessionId);
  }

  private attach(peer: JsonRpcPeer, sessionId: string): Promise<unknown> {
    return peer.request(ATTACH, { sessionId, afterSeq: this.sessions.get(sessionId) ?? 0 });
  }

  /** The live link, waiting for a reconnection under way (or until `signal` aborts). */
  private async link(signal?: AbortSignal): Promise<JsonRpcPeer> {
    if (this.ended !== null) throw A4aaError.peerClosed(false, this.ended);
    if (!this.reconnecting) return this.peer!;
    const reconnected = this.reconnecting.catch((e: Error) => {
      throw A4aaError.peerClosed(false, this.ended ?? e.message);
    });
    if (!signal) return reconnected;
    signal.throwIfAborted();
    let onAbort!: () => void;
    const aborted = new Promise<never>((_, reject) => signal.addEventListener("abort", (onAbort = () => reject(signal.reason)), { once: true }));
    try {
      return await Promise.race([reconnected, aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** One connection attempt: resolves once the upgrade succeeded, with its JSON-RPC peer. */
  private async open(): Promise<JsonRpcPeer> {
    // Loaded on the first connection: a host that only spawns sidecars never loads ws.
    const { default: WebSocket } = await import("ws");
    // Rejects with Refused (401/403: retrying cannot help) or an Error saying why.
    const headers: Record<string, string> = { ...this.opts.headers };
    if (this.opts.token !== undefined) headers.Authorization = `Bearer ${this.opts.token}`;
    const ws = new WebSocket(this.url, {
      headers,
      maxPayload: this.opts.maxMessageBytes ?? 1 << 30,
      handshakeTimeout: this.opts.connectTimeoutMs ?? 10_000,
      perMessageDeflate: false,
    });
    return new Promise((resolve, reject) => {
      ws.once("unexpected-response", (_req, res) => {
        const why =
          res.statusCode === 401
            ? "the sidecar refused the token (HTTP 401): pass the token of a NAME:TOKEN line of its --auth-token-file as {token}"
            : res.statusCode === 403
              ? "the sidecar refused the upgrade (HTTP 403): is this Origin in its --allow-origin?"
              : `the sidecar answered HTTP ${res.statusCode} instead of a WebSocket upgrade`;
        res.resume();
        ws.terminate();
        reject(res.statusCode === 401 || res.statusCode === 403 ? new Refused(`${this.url}: ${why}`) : new Error(`${this.url}: ${why}`));
      });
      ws.once("error", (e) => reject(new Error(`cannot connect to ${this.url}: ${e.message}`)));
      ws.once("open", () => {
        ws.removeAllListeners("error");
        ws.on("error", () => undefined); // the close that follows is what counts
        resolve(this.adopt(ws));
      });
    });
  }

  /** Wires an open WebSocket to a new JSON-RPC peer. */
  private adopt(ws: WebSocket): JsonRpcPeer {
    const onLine = this.opts.onLine;
    const peer: JsonRpcPeer = new JsonRpcPeer({
      ...this.peerHandlers(),
      sendLine: (line) => {
        onLine?.("out", line);
        if (ws.readyState === ws.OPEN) ws.send(line);
      },
    });
    ws.on("message", (data: WebSocket.RawData) => {
      const text = data.toString();
      onLine?.("in", text.length < 1 << 20 ? text : `<${text.length} chars>`);
      const r = parseJsonChecked(text, 2 * MAX_JSON_DEPTH);
      if (!r.ok) {
        process.stderr.write(`a4aa client: ignored a message that is not JSON (${r.detail})\n`);
        return;
      }
      this.opts.onMessage?.(r.value);
      peer.handle(r.value, text);
    });
    // Silence past the pong timeout ends the connection like a close (1006): lost() reconnects.
    let heard = Date.now();
    const alive = () => (heard = Date.now());
    ws.on("pong", alive);
    ws.on("message", alive);
    const pongTimeoutMs = this.opts.pongTimeoutMs ?? 30_000;
    const heartbeat = setInterval(() => {
      if (Date.now() - heard <= pongTimeoutMs) return ws.ping();
      this.log(`nothing from ${this.url} for ${pongTimeoutMs} ms; ending that connection`);
      ws.terminate();
    }, this.opts.pingIntervalMs ?? 15_000);
    heartbeat.unref();
    ws.once("close", (code, reason) => {
      clearInterval(heartbeat);
      this.lost(ws, peer, `the connection closed (${code}${reason.length ? ` ${reason.toString()}` : ""})`);
    });
    this.ws = ws;
    return peer;
  }

  private log(text: string): void {
    if (this.opts.onLog) this.opts.onLog(text);
    else process.stderr.write(`a4aa client: ${text}\n`);
  }

  private lost(ws: WebSocket, peer: JsonRpcPeer, why: string): void {
    peer.close(new Lost(`lost the connection to ${this.url}: ${why}`));
    if (ws !== this.ws || this.closing || this.ended !== null) return;
    this.ws = null;
    this.peer = null;
    if (this.reconnecting) return; // an attach of the reconnection failed with Lost: its loop goes on
    this.log(`lost the connection to ${this.url} (${why}); reconnecting`);
    const r = this.reconnect(why);
    this.reconnecting = r;
    r.then(
      (p) => {
        this.peer = p;
        this.reconnecting = null;
      },
      (e: Error) => {
        this.reconnecting = null;
        this.end(e.message);
      },
    );
  }

  /** Backoff until a connection is up and every session is attached again. */
  private async reconnect(why: string): Promise<JsonRpcPeer> {
    const o = this.opts.reconnect ?? {};
    const maxAttempts = o.maxAttempts ?? 10;
    const maxTimeMs = o.maxTimeMs ?? 60_000;
    const base = o.initialDelayMs ?? 100;
    const cap = o.maxDelayMs ?? 5000;
    const t0 = Date.now();
    let last = why;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const delay = Math.min(cap, base * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      if (Date.now() - t0 + delay > maxTimeMs) break;
      await new Promise((r) => setTimeout(r, delay));
      if (this.closing || this.ended !== null) throw new Error(this.ended ?? "the client closed the connection");
      try {
        const peer = await this.open();
        for (const sessionId of [...this.sessions.keys()]) {
          try {
            await this.attach(peer, sessionId);
          } catch (e) {
            if (!(e instanceof RpcResponseError)) throw e;
            // Gone (closed, detach TTL) or too far behind: that session's stream ends here.
            const err = A4aaError.fromWire(e.wire);
            this.log(`could not attach session ${sessionId} again: ${err.message}; its events end here`);
            this.sessions.delete(sessionId);
            this.events(sessionId).finish();
          }
        }
        this.reconnects++;
        this.log(`reconnected to ${this.url} (attempt ${attempt}); ${this.sessions.size} session(s) attached again`);
        return peer;
      } catch (e) {
        last = e instanceof Error ? e.message : String(e);
        if (e instanceof Refused) throw new Error(`${last} (while reconnecting)`);
      }
    }
    throw new Error(`lost the connection to ${this.url} (${why}) and could not reconnect in ${maxAttempts} attempts / ${maxTimeMs} ms: ${last}`);
  }

  protected closeLink(error: Error): void {
    this.peer?.close(error);
  }

  /**
   * Closes the connection; calls still pending fail peer_closed. The sessions stay on the
   * sidecar, detached, until its --detach-ttl (close them first to end them now).
   */
  async close(): Promise<void> {
    this.closing = true;
    const ws = this.ws;
    this.end("the client closed the connection");
    if (ws && ws.readyState !== ws.CLOSED) {
      const closed = new Promise((r) => ws.once("close", r));
      ws.close();
      const t = setTimeout(() => ws.terminate(), 2000);
      await closed;
      clearTimeout(t);
    }
  }
}

/** Connects to a sidecar's WebSocket listener: `connect("ws://127.0.0.1:8800", {token})`. */
export function connectRemote(url: string, opts: RemoteOptions = {}): Promise<RemoteClient> {
  return RemoteClient.connect(url, opts);
}
