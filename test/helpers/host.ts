// The one test host: a real `a4aa serve` (the compiled dist/src/cli/main.js) driven through
// clients/ts, the package's own client (its NdjsonPeer correlates requests and answers
// permission/request), with a hook on every line both ways for transcripts and wire
// assertions. Tests that must write what no client would (bad bytes, raw ids, batches)
// write lines by hand and find the answers in `received`.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { AgentEvent, AgentSpec } from "../../generated/ts/types.js";
import { A4aaClient, A4aaError } from "../../clients/ts/index.js";
import { RpcHandlerError } from "../../src/transport/json-rpc.js";

export const CLI = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

export interface RpcMessage {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: any };
}

/** How the host answers a permission/request: a result, an error, or never. */
export type PermissionAnswer = { result: unknown } | { error: { code: number; message: string } } | "ignore" | "never";

export interface HostOptions {
  args?: string[];
  /** The sidecar's own environment (default: this process's). */
  env?: Record<string, string | undefined>;
  /** Called for every permission/request; default: never answer. */
  onPermission?: (params: any) => PermissionAnswer | Promise<PermissionAnswer>;
  /** Longest line the host reads (default 512 MiB). */
  maxLineBytes?: number;
  /** Sees every line both ways (`out`: to the sidecar), as the transcript does. */
  onLine?: (dir: "in" | "out", line: string) => void;
  /** Every message the sidecar sends, parsed, as it arrives. */
  onMessage?: (msg: RpcMessage) => void;
}

/** `node <script> args…` with the sanitized env the tests use, tagged with `marker`. */
export function markedNodeCommand(script: string, args: string[], marker: string) {
  return {
    program: process.execPath,
    args: [script, ...args],
    env: { policy: "sanitized" as const, inherit: ["PATH", "HOME"], set: { A4AA_TEST_MARKER: marker } },
  };
}

export class TestHost {
  readonly client: A4aaClient;
  readonly proc: ChildProcessWithoutNullStreams;
  /** Every message the sidecar sent, parsed, in order (a batch answer as an array). */
  readonly received: RpcMessage[] = [];
  /** Every line the sidecar wrote, as text (a line of MiBs as `<N chars>`). */
  readonly rawLines: string[] = [];
  /** Every line written to the sidecar. */
  readonly sent: string[] = [];
  /** Both directions in order: `>> ` sent, `<< ` received. */
  readonly transcript: string[] = [];
  stderr = "";
  exitCode: number | null = null;
  readonly exited: Promise<number | null>;
  readonly exitStatus: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  onPermission: HostOptions["onPermission"];
  /** Requests made through the client: its peer numbers them 1, 2, … in the same order. */
  private requestsMade = 0;
  private lastOut: string | undefined;
  private readonly answers = new Map<number, RpcMessage>();
  private readonly waiters = new Set<() => void>();

  constructor(opts: HostOptions = {}) {
    this.onPermission = opts.onPermission;
    this.client = A4aaClient.start({
      command: [process.execPath, CLI, "serve", ...(opts.args ?? [])],
      env: (opts.env ?? process.env) as NodeJS.ProcessEnv,
      maxLineBytes: opts.maxLineBytes ?? 512 * 1024 * 1024,
      closeTimeoutMs: 20_000,
      onStderr: (d) => {
        this.stderr += d;
        this.wake();
      },
      onLine: (dir, line) => {
        if (dir === "in") this.rawLines.push(line);
        else {
          this.sent.push(line);
          this.lastOut = line;
        }
        this.transcript.push(`${dir === "in" ? "<<" : ">>"} ${line.length > 2000 ? line.slice(0, 2000) + "…" : line}`);
        opts.onLine?.(dir, line);
      },
      onMessage: (m) => {
        const msg = m as RpcMessage;
        this.received.push(msg);
        if (msg && typeof msg === "object" && msg.method === undefined && typeof msg.id === "number") this.answers.set(msg.id, msg);
        opts.onMessage?.(msg);
        this.wake();
      },
      onPermission: (params) => this.answerPermission(params),
    });
    this.proc = this.client.proc;
    this.exitStatus = new Promise((r) =>
      this.proc.once("exit", (code, signal) => {
        this.exitCode = code;
        r({ code, signal });
        this.wake();
      }),
    );
    this.exited = this.exitStatus.then((x) => x.code);
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  private async answerPermission(params: any): Promise<any> {
    const a = this.onPermission ? await this.onPermission(params) : "never";
    if (a === "ignore" || a === "never") return new Promise(() => undefined);
    if ("error" in a) throw new RpcHandlerError(a.error.code, a.error.message);
    return a.result;
  }

  /** Writes one raw line (a newline is added), past the client. */
  writeLine(line: string | Buffer): void {
    const text = typeof line === "string" ? line : `<${line.length} bytes>`;
    this.sent.push(text);
    this.transcript.push(`>> ${text.length > 2000 ? text.slice(0, 2000) + "…" : text}`);
    this.proc.stdin.write(line);
    this.proc.stdin.write("\n");
  }

  write(msg: unknown): void {
    this.writeLine(JSON.stringify(msg));
  }

  /**
   * Sends a request and resolves with the whole response message (an object of
   * `received`). With `id`, the request is written by hand with that id.
   */
  async call(method: string, params?: unknown, id?: unknown): Promise<RpcMessage> {
    if (id !== undefined) return this.callWithId(method, params, id);
    this.lastOut = undefined;
    const open = this.exitCode === null && !this.proc.stdout.readableEnded;
    const settled = this.client.call(method, params).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (open) this.requestsMade++;
    // The request line just written carries the id (unless a big line holds it back).
    const line = this.lastOut as string | undefined;
    const sentId = line !== undefined && !line.startsWith("<") ? (JSON.parse(line) as { id: number }).id : this.requestsMade;
    const failure = await settled;
    const answer = sentId !== undefined ? this.answers.get(sentId) : undefined;
    if (answer) {
      this.answers.delete(sentId!);
      return answer;
    }
    if (failure instanceof A4aaError && failure.code === "peer_closed") {
      throw new Error(`${method}: the sidecar went away before answering (exit ${this.exitCode}); stderr:\n${this.stderr.slice(-3000)}`);
    }
    throw failure ?? new Error(`${method}: no answer recorded`);
  }

  private async callWithId(method: string, params: unknown, id: unknown): Promise<RpcMessage> {
    const key = JSON.stringify(id);
    const from = this.received.length;
    this.write({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    let hit: RpcMessage | undefined;
    await this.waitFor(
      () => (hit = this.received.slice(from).find((m) => m && m.method === undefined && "id" in m && JSON.stringify(m.id) === key)) !== undefined || this.exitCode !== null,
      600_000,
      `the answer to ${method} id ${key}`,
    );
    if (!hit) throw new Error(`${method}: the sidecar exited (${this.exitCode}) before answering; stderr:\n${this.stderr.slice(-3000)}`);
    return hit;
  }

  /** Like call, but rejects with the error (data.code in the message) when it fails. */
  async ok<T = any>(method: string, params?: unknown): Promise<T> {
    const r = await this.call(method, params);
    if (r.error) throw Object.assign(new Error(`${method} failed: ${r.error.data?.code} ${r.error.data?.detail ?? r.error.message}`), { rpc: r.error });
    return r.result as T;
  }

  async open(spec: AgentSpec, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await this.ok<{ sessionId: string }>("session/open", { spec, ...extra });
    return r.sessionId;
  }

  events(sessionId?: string): AgentEvent[] {
    return this.received
      .filter((m) => m && m.method === "session/event" && (sessionId === undefined || m.params.sessionId === sessionId))
      .map((m) => m.params.event as AgentEvent);
  }

  permissionRequests(): any[] {
    return this.received.filter((m) => m && m.method === "permission/request").map((m) => m.params);
  }

  /** Resolves when `pred()` holds (re-checked on every message, stderr chunk and exit). */
  waitFor(pred: () => boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      const check = () => {
        if (pred()) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve();
        }
      };
      this.waiters.add(check);
    });
  }

  /** Resolves when the sidecar's stderr matches `re`: stderr is its own pipe, so a line
   * logged before an answer may arrive after it; asserting on `stderr` at once races. */
  stderrMatch(re: RegExp, what = `stderr matching ${re}`, timeoutMs = 10_000): Promise<void> {
    return this.waitFor(() => re.test(this.stderr), timeoutMs, what);
  }

  /** Closes stdin (EOF) and waits for the exit status (SIGKILL after `timeoutMs`). */
  async end(timeoutMs = 20_000): Promise<number | null> {
    this.proc.stdin.end();
    return this.awaitExit(timeoutMs);
  }

  /** SIGTERM to the sidecar; resolves with its exit code (SIGKILL after `timeoutMs`). */
  async terminate(timeoutMs = 20_000): Promise<number | null> {
    this.proc.kill("SIGTERM");
    return this.awaitExit(timeoutMs);
  }

  private async awaitExit(timeoutMs: number): Promise<number | null> {
    const t = setTimeout(() => this.proc.kill("SIGKILL"), timeoutMs);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }

  /** Last resort for a test that failed midway. */
  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGKILL");
  }
}
