// A test host: runs the real `a4aa serve` (the compiled dist/src/cli/main.js) as a child
// process and speaks NDJSON to it, recording every message in both directions.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { AgentEvent, AgentSpec } from "../../generated/ts/types.js";
import { LineReader } from "../../src/transport/line-reader.js";
import { killAll, newMarker, processesWithMarker, waitGone } from "./procs.js";

export { newMarker, processesWithMarker };

export const CLI = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
export const FAKE_ACP_AGENT = fileURLToPath(new URL("../fixtures/acp/fake-agent.js", import.meta.url));
export const EXAMPLE_AGENT = fileURLToPath(new URL("../../src/examples/example-agent.js", import.meta.url));

export interface RpcMessage {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: any };
}

export type PermissionAnswer =
  | { result: unknown }
  | { error: { code: number; message: string } }
  | "ignore";

export interface StartOptions {
  args?: string[];
  /** The sidecar's own environment (default: this process's, plus SECRET_TOKEN). */
  env?: Record<string, string | undefined>;
  /** Called for every permission/request; default: ignore (never answer). */
  onPermission?: (params: any) => PermissionAnswer | Promise<PermissionAnswer>;
  maxLineBytes?: number;
}

export class TestSidecar {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly received: RpcMessage[] = [];
  /** Every line the sidecar wrote, as text. */
  readonly rawLines: string[] = [];
  readonly sent: string[] = [];
  stderr = "";
  exitCode: number | null = null;
  readonly exited: Promise<number | null>;
  private nextId = 1;
  private readonly pending = new Map<string, (m: RpcMessage) => void>();
  private readonly waiters = new Set<() => void>();
  onPermission: StartOptions["onPermission"];

  constructor(opts: StartOptions = {}) {
    this.onPermission = opts.onPermission;
    this.proc = spawn(process.execPath, [CLI, "serve", ...(opts.args ?? [])], {
      env: (opts.env ?? { ...process.env, SECRET_TOKEN: "do-not-leak" }) as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.exited = new Promise((r) => this.proc.once("exit", (code) => r((this.exitCode = code))));
    this.proc.stderr.setEncoding("utf8");
    this.proc.stderr.on("data", (d: string) => {
      this.stderr += d;
      this.notify();
    });
    const reader = new LineReader({
      maxLineBytes: opts.maxLineBytes ?? 512 * 1024 * 1024,
      onOversize: () => {
        throw new Error("the sidecar wrote a line over the test's limit");
      },
      onLine: (line) => {
        const text = line.toString("utf8");
        if (text.length < 1 << 20) this.rawLines.push(text);
        else this.rawLines.push(`<${text.length} chars>`);
        this.onMessage(JSON.parse(text) as RpcMessage);
      },
    });
    this.proc.stdout.on("data", (c: Buffer) => reader.push(c));
    this.proc.stdin.on("error", () => undefined);
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  private onMessage(m: RpcMessage): void {
    this.received.push(m);
    if (Array.isArray(m)) {
      this.notify();
      return;
    }
    if (m.method === "permission/request" && m.id !== undefined) {
      void this.answerPermission(m);
    } else if (m.method === undefined && m.id !== undefined) {
      const key = JSON.stringify(m.id);
      const r = this.pending.get(key);
      if (r) {
        this.pending.delete(key);
        r(m);
      }
    }
    this.notify();
  }

  private async answerPermission(m: RpcMessage): Promise<void> {
    const a = this.onPermission ? await this.onPermission(m.params) : "ignore";
    if (a === "ignore") return;
    this.write({ jsonrpc: "2.0", id: m.id, ...a });
  }

  /** Writes one raw line (a newline is added). */
  writeLine(line: string | Buffer): void {
    this.sent.push(typeof line === "string" ? line : `<${line.length} bytes>`);
    this.proc.stdin.write(line);
    this.proc.stdin.write("\n");
  }

  write(msg: unknown): void {
    this.writeLine(JSON.stringify(msg));
  }

  /** Sends a request and resolves with the whole response message. */
  call(method: string, params?: unknown, id: unknown = this.nextId++): Promise<RpcMessage> {
    const p = new Promise<RpcMessage>((r) => this.pending.set(JSON.stringify(id), r));
    this.write({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return p;
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
      .filter((m) => m.method === "session/event" && (sessionId === undefined || m.params.sessionId === sessionId))
      .map((m) => m.params.event as AgentEvent);
  }

  /** Resolves when `pred()` holds (re-checked on every message and stderr chunk). */
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

  /** Closes stdin (EOF) and waits for the exit status. */
  async end(timeoutMs = 20_000): Promise<number | null> {
    this.proc.stdin.end();
    const t = setTimeout(() => this.proc.kill("SIGKILL"), timeoutMs);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }

  /** Last resort for a test that failed midway. */
  kill(): void {
    if (this.exitCode === null) this.proc.kill("SIGKILL");
  }
}

export function fakeAgentSpec(marker: string, flags: string[] = [], extra: Partial<AgentSpec> = {}): AgentSpec {
  return {
    id: "fake",
    lane: "acp",
    command: {
      program: process.execPath,
      args: [FAKE_ACP_AGENT, ...flags],
      env: { policy: "sanitized", inherit: ["PATH", "HOME"], set: { A4AA_TEST_MARKER: marker } },
    },
    ...extra,
  } as AgentSpec;
}

export function exampleAgentSpec(marker: string, args: string[] = ["--delay-ms", "1"]): AgentSpec {
  return {
    id: "example",
    lane: "acp",
    command: {
      program: process.execPath,
      args: [EXAMPLE_AGENT, ...args],
      env: { policy: "sanitized", inherit: ["PATH", "HOME"], set: { A4AA_TEST_MARKER: marker } },
    },
  };
}

/** Waits until no process carries `marker`; returns the survivors after `timeoutMs`. */
export function waitNoProcesses(marker: string, timeoutMs = 5000): Promise<number[]> {
  return waitGone(() => processesWithMarker(marker), timeoutMs);
}

/** Kills whatever carries `marker` (cleanup after a failed test). */
export function killMarked(marker: string): void {
  killAll(processesWithMarker(marker));
}
