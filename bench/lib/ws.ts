// The bench's host side over a sidecar's WebSocket listener (`serve --listen ws://…`): one
// JSON-RPC message a text frame, the same call/ok as the NDJSON Conn.
import type { ChildProcess } from "node:child_process";
import { startSidecar } from "./proc.js";
import WebSocket from "ws";
import type { Msg } from "./ndjson.js";

export class WsConn {
  private nextId = 1;
  private readonly pending = new Map<number, (m: Msg) => void>();
  /** Notifications (session/event, …) as they come. */
  onNotification: ((m: Msg) => void) | undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const m = JSON.parse(data.toString()) as Msg;
      if (m.method !== undefined) {
        if (m.id === undefined) this.onNotification?.(m);
        return;
      }
      const cb = this.pending.get(m.id as number);
      if (cb) {
        this.pending.delete(m.id as number);
        cb(m);
      }
    });
    ws.once("close", () => {
      for (const cb of this.pending.values()) cb({ error: { code: -1, message: "the connection closed before the answer" } });
      this.pending.clear();
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<WsConn> {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new WsConn(ws)));
      ws.once("error", reject);
    });
  }

  call(method: string, params?: unknown): Promise<Msg> {
    const id = this.nextId++;
    const p = new Promise<Msg>((r) => this.pending.set(id, r));
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return p;
  }

  async ok<T = any>(method: string, params?: unknown): Promise<T> {
    const m = await this.call(method, params);
    if (m.error) throw new Error(`${method}: ${m.error.data?.code ?? m.error.code} ${m.error.data?.detail ?? m.error.message}`);
    return m.result as T;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** The ws:// URL a sidecar started with `--listen ws://127.0.0.1:0` announces on stderr. */
export function listeningUrl(side: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (d: Buffer) => {
      text += d.toString();
      const m = /a4aa serve: listening on (ws:\/\/\S+)/.exec(text);
      if (m) {
        side.stderr!.off("data", onData);
        side.stderr!.resume();
        resolve(m[1]);
      }
    };
    side.stderr!.on("data", onData);
    side.once("exit", (code) => reject(new Error(`the sidecar exited ${code} before listening: ${text.slice(-500)}`)));
  });
}

/** `a4aa serve --listen ws://127.0.0.1:0 …args`, once it listens: its ws:// and http:// URLs. */
export async function listeningSidecar(args: string[] = []): Promise<{ side: ChildProcess; url: string; http: string }> {
  const side = startSidecar(["--listen", "ws://127.0.0.1:0", ...args]);
  const url = await listeningUrl(side);
  return { side, url, http: url.replace(/^ws/, "http") };
}
