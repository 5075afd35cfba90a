// Protocol 1.3 (§15): the implementation started with `--listen`, and hosts that reach it
// over a WebSocket. The listening process is a Host on its stdio like any other (so the
// runner reports and ends it); each connection is a Host whose channel is one WebSocket:
// one text frame, one message, both ways, every one validated as on stdio.
import { readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import WebSocket from "ws";
import type { CheckContext } from "./context.js";
import { Host } from "./client.js";
import { transcriptEntry, truncate, type Channel, type Direction, type TranscriptEntry } from "./wire.js";

/**
 * A free loopback port for the implementation to listen on next, chosen below the kernel's
 * ephemeral range: a port bound and released inside that range can be handed at once to any
 * process binding port 0 (with self-tests running side by side, one was, and the harness
 * then spoke to another implementation: 401).
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let i = 0; i < 100; i++) {
    const port = low > 11_000 ? 10_000 + Math.floor(Math.random() * (low - 10_000)) : 0;
    const got = await new Promise<number | null>((resolve) => {
      const s = net.createServer();
      s.once("error", () => resolve(null));
      s.listen(port, "127.0.0.1", () => {
        const bound = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(bound));
      });
    });
    if (got !== null) return got;
  }
  throw new Error("no free loopback port below the ephemeral range in 100 tries");
}

/** The first port of the kernel's ephemeral range (Linux's default when unknown). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/** Resolves once something accepts TCP connections on the port; false if `alive()` turns false first or time runs out. */
async function waitListening(port: number, alive: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && alive()) {
    const up = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, "127.0.0.1");
      c.once("connect", () => (c.destroy(), resolve(true)));
      c.once("error", () => resolve(false));
    });
    if (up) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

export interface ConnectOptions {
  /** Tenant whose token goes in `Authorization` (default the first). */
  tenant?: string;
  /** Sent as is instead of the tenant's bearer token (null: no Authorization header). */
  authorization?: string | null;
  origin?: string;
}

/** The outcome of an upgrade the implementation refused, or of one it took. */
export type UpgradeOutcome = { status: number } | { status: 101; ws: WebSocket };

export class RemoteServer {
  readonly tokens: Record<string, string>;
  constructor(
    private readonly ctx: CheckContext,
    /** The listening implementation, on its stdio. */
    readonly server: Host,
    readonly port: number,
    tokens: Record<string, string>,
  ) {
    this.tokens = tokens;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/`;
  }

  private headers(o: ConnectOptions): Record<string, string> {
    const h: Record<string, string> = {};
    const tenant = o.tenant ?? Object.keys(this.tokens)[0]!;
    if (o.authorization !== null) h.authorization = o.authorization ?? `Bearer ${this.tokens[tenant]}`;
    if (o.origin) h.origin = o.origin;
    return h;
  }

  /** Tries an upgrade; the HTTP status of a refusal, or the open socket. */
  upgrade(o: ConnectOptions = {}, timeoutMs = 10_000): Promise<UpgradeOutcome> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url, { headers: this.headers(o), handshakeTimeout: timeoutMs, maxPayload: 80 * 1024 * 1024 });
      ws.once("open", () => resolve({ status: 101, ws }));
      ws.once("unexpected-response", (_req, res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0 });
        ws.terminate();
      });
      ws.once("error", (e) => reject(new Error(`the WebSocket upgrade to ${this.url} failed: ${e.message}`)));
    });
  }

  /** A host on a new connection (the upgrade must succeed). */
  async connect(o: ConnectOptions = {}): Promise<Host> {
    const u = await this.upgrade(o);
    if (!("ws" in u)) throw new Error(`the implementation refused the upgrade with HTTP ${u.status}`);
    const ws = u.ws;
    const h = new Host((onLine, onStderr) => new WsChannel(ws, this.server, onLine, onStderr));
    this.ctx.hosts.push(h);
    return h;
  }

  /** A plain HTTP GET on the listener. */
  async get(pathname: string, o: ConnectOptions = {}): Promise<{ status: number; body: string }> {
    const r = await fetch(`http://127.0.0.1:${this.port}${pathname}`, { headers: this.headers(o), signal: AbortSignal.timeout(10_000) });
    return { status: r.status, body: await r.text() };
  }
}

/** Starts the implementation listening on a loopback WebSocket, with two tenants' tokens. */
export async function startRemote(ctx: CheckContext, args: string[] = [], opts: { tokens?: Record<string, string> } = {}): Promise<RemoteServer> {
  const port = await freePort();
  const tokens = opts.tokens ?? { alice: `tok-a-${ctx.secret}`, bob: `tok-b-${ctx.secret}` };
  const file = path.join(ctx.tmp, "tokens");
  writeFileSync(file, Object.entries(tokens).map(([n, t]) => `${n}:${t}\n`).join(""), { mode: 0o600 });
  const server = ctx.start({ args: ["--listen", `ws://127.0.0.1:${port}`, "--auth-token-file", file, ...args] });
  const up = await waitListening(port, () => !server.wire.exit, 15_000);
  if (!up) {
    if (server.wire.exit) ctx.skip(`the implementation does not listen (it exited ${server.wire.exit.code} on --listen): ${truncate(server.stderr.trim(), 300)}`);
    throw new Error(`nothing listens on 127.0.0.1:${port} 15 s after the start with --listen`);
  }
  return new RemoteServer(ctx, server, port, tokens);
}

/** One WebSocket as a Host's channel. `exited` resolves when the socket closes (code = the close code). */
export class WsChannel implements Channel {
  readonly transcript: TranscriptEntry[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  /** The close frame's reason. */
  closeReason = "";
  private readonly t0 = Date.now();

  constructor(
    readonly ws: WebSocket,
    private readonly server: Host,
    onLine: (line: string) => void,
    onStderr: () => void,
  ) {
    ws.on("message", (data, isBinary) => {
      const text = Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8");
      this.record("recv", text);
      if (isBinary) this.note("VIOLATION: a binary frame (R-REMOTE-1 says text frames)");
      onLine(text);
    });
    ws.on("error", (e) => this.note(`socket error: ${e.message}`));
    this.exited = new Promise((resolve) =>
      ws.once("close", (code, reason) => {
        this.closeReason = reason.toString();
        this.exit = { code, signal: null };
        this.note(`connection closed: ${code} ${this.closeReason}`);
        onStderr();
        resolve(this.exit);
      }),
    );
  }

  get proc() {
    return this.server.wire.proc;
  }
  get pid() {
    return this.server.wire.pid;
  }
  get stderr() {
    return this.server.wire.stderr;
  }
  get stderrLength() {
    return this.server.wire.stderrLength;
  }

  private record(dir: Direction, text: string): void {
    this.transcript.push(transcriptEntry(Date.now() - this.t0, dir, text));
  }

  note(text: string): void {
    this.record("note", text);
  }

  writeLine(line: string | Buffer): Promise<void> {
    this.record("send", typeof line === "string" ? line : `<${line.length} bytes>`);
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.resolve();
    return new Promise((resolve) => this.ws.send(typeof line === "string" ? line : line.toString("utf8"), () => resolve()));
  }

  writeRaw(): Promise<void> {
    throw new Error("writeRaw: a WebSocket carries whole messages; use writeLine");
  }

  /** Closes the connection (normal closure). */
  endInput(): void {
    this.note("host closed the connection");
    this.ws.close(1000);
  }

  pauseReading(): void {
    this.note("host stopped reading the socket");
    this.ws.pause();
  }

  resumeReading(): void {
    this.note("host resumed reading the socket");
    this.ws.resume();
  }

  signal(sig: NodeJS.Signals): void {
    this.server.wire.signal(sig);
  }

  /** Cuts the connection without a close handshake. */
  destroy(): void {
    this.ws.terminate();
  }
}
