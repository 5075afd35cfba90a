// The bench's host side of an NDJSON JSON-RPC link, hand-written and minimal: it is also
// the "floor" consumer of the streaming benchmark. Lines are split on the decoded string
// (one UTF-8 decode per chunk) and every line is JSON.parse'd.
import type { Readable, Writable } from "node:stream";
import type { RpcMessage } from "../../test/helpers/host.js";

/** A JSON-RPC message as the tests' host reads it. */
export type Msg = RpcMessage;

/** Calls `onLine` for every `\n`-terminated line of `input` (decoded as UTF-8). */
export function readLines(input: Readable, onLine: (line: string) => void): void {
  input.setEncoding("utf8");
  let parts: string[] = [];
  input.on("data", (chunk: string) => {
    let start = 0;
    let nl = chunk.indexOf("\n");
    while (nl !== -1) {
      let line = chunk.slice(start, nl);
      if (parts.length) {
        parts.push(line);
        line = parts.join("");
        parts = [];
      }
      if (line.length) onLine(line);
      start = nl + 1;
      nl = chunk.indexOf("\n", start);
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
  });
}

/** Writes `data`, resolving once the stream has taken it (honours backpressure). */
export function writeAll(out: Writable, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.write(data)) resolve();
    else {
      const onDrain = () => {
        out.off("error", onError);
        resolve();
      };
      const onError = (e: Error) => {
        out.off("drain", onDrain);
        reject(e);
      };
      out.once("drain", onDrain);
      out.once("error", onError);
    }
  });
}

/** A JSON-RPC client over a child's stdin/stdout (numeric ids). */
export class Conn {
  private nextId = 1;
  private readonly pending = new Map<number, (m: Msg) => void>();
  /** Called for every notification (no id). */
  onNotification: (m: Msg) => void = () => undefined;
  /** Called for a response that matches no pending id (e.g. `id: null` frame errors). */
  onUnmatched: (m: Msg) => void = () => undefined;
  closed = false;
  readonly ended: Promise<void>;

  constructor(
    private readonly out: Writable,
    input: Readable,
  ) {
    this.ended = new Promise((r) =>
      input.once("close", () => {
        this.closed = true;
        // Nothing more will come: calls still waiting fail instead of hanging.
        const left = [...this.pending.values()];
        this.pending.clear();
        for (const cb of left) cb({ error: { code: -1, message: "the connection closed before the answer" } });
        r();
      }),
    );
    readLines(input, (line) => {
      const m = JSON.parse(line) as Msg;
      if (m.method !== undefined) {
        if (m.id === undefined) this.onNotification(m);
        return; // the bench never answers requests from the other side
      }
      const cb = this.pending.get(m.id as number);
      if (cb) {
        this.pending.delete(m.id as number);
        cb(m);
      } else this.onUnmatched(m);
    });
  }

  /** Sends a request; resolves with the whole response message. */
  call(method: string, params?: unknown): Promise<Msg> {
    if (this.closed) return Promise.resolve({ error: { code: -1, message: "the connection is closed" } });
    const id = this.nextId++;
    const p = new Promise<Msg>((r) => this.pending.set(id, r));
    this.out.write(JSON.stringify(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }) + "\n");
    return p;
  }

  /** Like call, but rejects when the answer is an error. */
  async ok<T = any>(method: string, params?: unknown): Promise<T> {
    const m = await this.call(method, params);
    if (m.error) throw new Error(`${method}: ${m.error.data?.code ?? m.error.code} ${m.error.data?.detail ?? m.error.message}`);
    return m.result as T;
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): void {
    this.out.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
  }

  /** Registers a waiter for a response id the caller wrote itself (raw writes). */
  expect(id: number): Promise<Msg> {
    return new Promise<Msg>((r) => this.pending.set(id, r));
  }

  /** A fresh id for a raw write. */
  takeId(): number {
    return this.nextId++;
  }

  write(data: string | Buffer): Promise<void> {
    return writeAll(this.out, data);
  }
}
