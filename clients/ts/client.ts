// The runtime: spawn `a4aa serve`, speak NDJSON JSON-RPC 2.0 to it, route what it sends.
// Node's standard library only; typed stubs come from generated.ts.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AgentEvent, PermissionRequest, PermissionResponse, SessionEventParams } from "../../generated/ts/types.js";
import { A4aaError } from "./errors.js";
import { EventStream } from "./events.js";
import { HostMethods, dispatchSidecar, type CallOptions, type SidecarHandler } from "./generated.js";

/**
 * Answers permission/request: `{selected: optionId}` or `{cancelled: true}`. A rejection, an
 * exception or no handler at all answer an error, which the sidecar fails closed (`cancelled`,
 * decidedBy "policy").
 */
export type PermissionHandler = (req: PermissionRequest) => PermissionResponse | Promise<PermissionResponse>;

export interface ClientOptions {
  /**
   * The sidecar's command line. Default: the `a4aa serve` of the package this client comes
   * from (`a4aa/client`), run by this Node; `["a4aa", "serve"]` from PATH if it is missing.
   */
  command?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Receives the sidecar's log lines; default: written to this process's stderr. */
  onStderr?: (text: string) => void;
  onPermission?: PermissionHandler;
  /** Incoming lines longer than this are skipped without being held whole. Default 1 GiB. */
  maxLineBytes?: number;
  /** How long close() waits for the exit after EOF before killing the sidecar. Default 30 s. */
  closeTimeoutMs?: number;
}

/** `a4aa serve` of this package: dist/clients/ts/client.js → dist/src/cli/main.js. */
function bundledSidecar(): string[] | undefined {
  const bin = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
  return existsSync(bin) ? [process.execPath, bin, "serve"] : undefined;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** One connection to a sidecar this client spawns. */
export class A4aaClient extends HostMethods {
  readonly proc: ChildProcessWithoutNullStreams;
  private readonly opts: ClientOptions;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly streams = new Map<string, EventStream>();
  private ended: string | null = null;
  private readonly exited: Promise<ExitStatus>;
  private readonly router: SidecarHandler;
  private warnedNoHandler = false;

  static start(opts: ClientOptions = {}): A4aaClient {
    return new A4aaClient(opts);
  }

  constructor(opts: ClientOptions = {}) {
    super();
    this.opts = opts;
    const [program, ...args] = opts.command ?? bundledSidecar() ?? ["a4aa", "serve"];
    this.proc = spawn(program, args, { env: opts.env, cwd: opts.cwd, stdio: ["pipe", "pipe", "pipe"] });
    this.exited = new Promise((resolve) => this.proc.once("close", (code, signal) => resolve({ code, signal })));
    this.proc.once("error", (e) => this.end(`cannot run ${program}: ${e.message}`));
    this.proc.stdin.on("error", () => undefined); // EPIPE: reported by the write callbacks
    this.proc.stderr.setEncoding("utf8");
    this.proc.stderr.on("data", (d: string) => (opts.onStderr ? opts.onStderr(d) : process.stderr.write(d)));
    this.router = {
      sessionEvent: (p: SessionEventParams) => this.events(p.sessionId).push(p.event),
      permissionRequest: async (p: PermissionRequest): Promise<PermissionResponse> => {
        if (!this.opts.onPermission) {
          // An error answer: the sidecar fails it closed as its policy (decidedBy "policy"), not as a host choice.
          if (!this.warnedNoHandler) process.stderr.write("a4aa client: no onPermission handler: permission requests fail closed (cancelled)\n");
          this.warnedNoHandler = true;
          throw new Error("the host has no permission handler");
        }
        return (await this.opts.onPermission(p)) ?? { cancelled: true };
      },
    };
    this.readLines();
  }

  /** Sends any request and resolves with its raw result; the typed methods are the usual way. */
  call(method: string, params: unknown = {}, opts?: CallOptions): Promise<unknown> {
    return this.request(method, params, opts);
  }

  protected request(method: string, params: unknown, opts: CallOptions = {}): Promise<unknown> {
    if (this.ended !== null) return Promise.reject(A4aaError.peerClosed(false, this.ended));
    const id = ++this.nextId;
    return new Promise<unknown>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        this.pending.delete(id);
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        done();
        reject(opts.signal?.reason ?? new Error("aborted"));
      };
      this.pending.set(id, {
        resolve: (v) => {
          done();
          if (method === "session/close") this.events((params as { sessionId: string }).sessionId).finish();
          resolve(v);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      if (opts.timeoutMs !== undefined) timer = setTimeout(() => this.pending.get(id)?.reject(new Error(`${method}: no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      this.write({ jsonrpc: "2.0", id, method, params }, (err) => {
        if (err) this.pending.get(id)?.reject(A4aaError.peerClosed(false, `write failed: ${err.message}`));
      });
    });
  }

  private write(msg: unknown, cb?: (err: Error | null | undefined) => void): void {
    if (!this.proc.stdin.writable) {
      cb?.(new Error("the sidecar's stdin is closed"));
      return;
    }
    this.proc.stdin.write(JSON.stringify(msg) + "\n", cb);
  }

  /**
   * Session `sessionId`'s events in the order the sidecar sent them (`for await … of`). Events
   * that arrive before session/open has answered are kept, not dropped; the stream ends after
   * session/close succeeds or the connection ends.
   */
  events(sessionId: string): EventStream {
    let s = this.streams.get(sessionId);
    if (!s) {
      s = new EventStream();
      this.streams.set(sessionId, s);
      if (this.ended !== null) s.finish();
    }
    return s;
  }

  // One reader: split stdout into lines without a fixed buffer (no 64 KiB trap), skipping a
  // line over maxLineBytes without holding it.
  private readLines(): void {
    const max = this.opts.maxLineBytes ?? 1 << 30;
    let parts: Buffer[] = [];
    let size = 0;
    let skipping = false;
    this.proc.stdout.on("data", (chunk: Buffer) => {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(10, start);
        if (nl < 0) {
          if (!skipping) {
            parts.push(chunk.subarray(start));
            size += chunk.length - start;
            if (size > max) [parts, size, skipping] = [[], 0, true];
          }
          return;
        }
        if (!skipping) {
          parts.push(chunk.subarray(start, nl));
          size += nl - start;
          if (size <= max) this.handleLine(parts.length === 1 ? parts[0] : Buffer.concat(parts, size));
          else process.stderr.write(`a4aa client: skipped an incoming line over ${max} bytes\n`);
        } else process.stderr.write(`a4aa client: skipped an incoming line over ${max} bytes\n`);
        [parts, size, skipping] = [[], 0, false];
        start = nl + 1;
      }
    });
    this.proc.stdout.once("end", () => this.end("the sidecar closed its stdout"));
  }

  private handleLine(line: Buffer): void {
    const text = line.toString("utf8").trim();
    if (!text) return;
    let msg: { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
    try {
      msg = JSON.parse(text);
    } catch {
      process.stderr.write("a4aa client: ignored a line that is not JSON\n");
      return;
    }
    if (!msg || typeof msg !== "object" || Array.isArray(msg)) return;
    if (typeof msg.method === "string") {
      if ("id" in msg) void this.handleRequest(msg.id, msg.method, msg.params);
      else if (!dispatchSidecar(this.router, msg.method, msg.params)) process.stderr.write(`a4aa client: ignored unknown notification ${msg.method}\n`);
      return;
    }
    const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
    if (!p) return; // its caller gave up
    if ("error" in msg) p.reject(A4aaError.fromWire(msg.error));
    else p.resolve(msg.result);
  }

  private async handleRequest(id: unknown, method: string, params: unknown): Promise<void> {
    let reply: unknown;
    try {
      const d = dispatchSidecar(this.router, method, params);
      reply = d ? { jsonrpc: "2.0", id, result: await d.result } : { jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${method}` } };
    } catch (e) {
      // The host's handler failed: the sidecar answers the agent "cancelled".
      reply = { jsonrpc: "2.0", id, error: { code: -32000, message: `handler failed: ${e instanceof Error ? e.message : String(e)}` } };
    }
    this.write(reply);
  }

  private end(cause: string): void {
    if (this.ended !== null) return;
    this.ended = cause;
    for (const p of [...this.pending.values()]) p.reject(A4aaError.peerClosed(true, cause));
    for (const s of this.streams.values()) s.finish();
  }

  /**
   * Closes the sidecar's stdin (EOF): it closes every session and exits. Resolves with its exit
   * status (killing it after closeTimeoutMs). Calls still pending fail with peer_closed.
   */
  async close(): Promise<ExitStatus> {
    this.proc.stdin.end();
    const timeout = this.opts.closeTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.proc.kill("SIGKILL");
        resolve();
      }, timeout);
      timer.unref();
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    const status = await this.exited;
    this.end("the client closed the connection");
    return status;
  }
}

export type { AgentEvent };
