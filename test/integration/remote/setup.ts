// Remote-host tests (§15): a real `a4aa serve --listen` on loopback, driven by WebSocket
// clients of the `ws` package. Every sidecar and agent a test starts is ended after its file.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { after } from "node:test";
import WebSocket from "ws";
import { CLI, killMarked, newMarker } from "../../helpers/sidecar.js";

import type { RpcMessage } from "../../helpers/host.js";

export type RpcMsg = RpcMessage;

export class ListeningSidecar {
  readonly proc: ChildProcessWithoutNullStreams;
  stderr = "";
  /** The addresses it announced, with the port actually bound. */
  readonly urls: Promise<string[]>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /** `launcher`: a command the sidecar runs under, e.g. `["ip", "netns", "exec", NS]` (it must exec, keeping the pid). */
  constructor(args: string[], env: NodeJS.ProcessEnv = process.env, launcher: string[] = []) {
    const [cmd, ...pre] = [...launcher, process.execPath];
    this.proc = spawn(cmd, [...pre, CLI, "serve", ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    this.proc.stderr.setEncoding("utf8");
    this.exited = new Promise((resolve) => this.proc.once("exit", (code, signal) => resolve({ code, signal })));
    const n = args.filter((a) => a === "--listen").length;
    this.urls = new Promise((resolve, reject) => {
      const urls: string[] = [];
      this.proc.stderr.on("data", (d: string) => {
        this.stderr += d;
        for (const m of d.matchAll(/a4aa serve: listening on (\S+)/g)) urls.push(m[1]!);
        if (urls.length >= n) resolve(urls);
      });
      this.exited.then(({ code }) => reject(new Error(`a4aa serve exited ${code} before listening: ${this.stderr}`)));
    });
    this.urls.catch(() => undefined);
  }

  async url(): Promise<string> {
    return (await this.urls)[0]!;
  }

  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGKILL");
  }

  /** SIGTERM, then the exit status. */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.proc.kill("SIGTERM");
    return this.exited;
  }
}

/** One WebSocket host connection: requests by id, every message kept in order. */
export class WsHost {
  readonly ws: WebSocket;
  readonly received: RpcMsg[] = [];
  private nextId = 1;
  private readonly waiters = new Set<() => void>();
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Answers permission/request (default: never). */
  onPermission?: (params: any) => unknown;

  constructor(url: string, opts: WebSocket.ClientOptions = {}) {
    this.ws = new WebSocket(url, opts);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
      this.ws.once("unexpected-response", (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    });
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) => this.ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
    this.ws.on("error", () => undefined);
    this.ws.on("message", (data) => {
      const msg = JSON.parse(data.toString()) as RpcMsg;
      this.received.push(msg);
      if (msg.method === "permission/request" && this.onPermission) {
        const answer = this.onPermission(msg.params);
        if (answer !== undefined) this.send({ jsonrpc: "2.0", id: msg.id, result: answer });
      }
      for (const w of [...this.waiters]) w();
    });
  }

  static async connect(url: string, opts: WebSocket.ClientOptions = {}): Promise<WsHost> {
    const h = new WsHost(url, opts);
    await h.opened;
    return h;
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === "string" ? msg : JSON.stringify(msg));
  }

  /** Sends a request; resolves with the whole response message. */
  async call(method: string, params: unknown = {}): Promise<RpcMsg> {
    const id = this.nextId++;
    this.send({ jsonrpc: "2.0", id, method, params });
    return this.waitFor((m) => m.id === id && m.method === undefined);
  }

  /** Sends a request; resolves with its result, rejects with its error. */
  async request(method: string, params: unknown = {}): Promise<any> {
    const r = await this.call(method, params);
    if (r.error) throw Object.assign(new Error(`${method}: ${r.error.message}`), { rpc: r.error, code: r.error.data?.code });
    return r.result;
  }

  /** Resolves with the first message (already received or to come) that matches. */
  waitFor(match: (m: RpcMsg) => boolean, timeoutMs = 15_000): Promise<RpcMsg> {
    const found = this.received.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = this.received.find(match);
        if (m) {
          this.waiters.delete(check);
          clearTimeout(t);
          resolve(m);
        }
      };
      const t = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.received).slice(-2000)}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  events(sessionId: string): { seq: number; event: any }[] {
    return this.received.filter((m) => m.method === "session/event" && m.params.sessionId === sessionId).map((m) => ({ seq: m.params.seq, event: m.params.event }));
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}

/** A test file's sidecars and agent markers, all ended after the file. */
export function remoteSetup(): { start: (args: string[], env?: NodeJS.ProcessEnv, launcher?: string[]) => ListeningSidecar; marker: () => string; hosts: WsHost[] } {
  const sidecars: ListeningSidecar[] = [];
  const markers: string[] = [];
  const hosts: WsHost[] = [];
  after(() => {
    for (const h of hosts) h.ws.terminate();
    for (const s of sidecars) s.kill();
    for (const m of markers) killMarked(m);
  });
  return {
    start: (args, env, launcher) => {
      const s = new ListeningSidecar(args, env, launcher);
      sidecars.push(s);
      return s;
    },
    marker: () => {
      const m = newMarker();
      markers.push(m);
      return m;
    },
    hosts,
  };
}
