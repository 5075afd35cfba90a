// The cli lane's test host: the one test host (test/helpers/host.ts, on clients/ts) running
// a real `a4aa serve`, plus session/event collection by session, permission/request
// answered with a handler, and a watch on every process the sidecar starts (its
// descendants' process groups, through /proc) so a test can assert that none is left.
import assert from "node:assert/strict";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";
import { TestHost } from "../../../helpers/host.js";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../..");
export const MAIN = path.join(REPO, "dist/src/cli/main.js");
export const FIXTURES = path.join(REPO, "test/fixtures");

export interface RpcError {
  code: number;
  message: string;
  data?: { code: string; stage: string; retryable: boolean; uncertainEffect: boolean; detail?: string };
}

export class RpcFailure extends Error {
  constructor(readonly error: RpcError) {
    super(`${error.message}: ${error.data?.code ?? ""} ${error.data?.detail ?? ""}`);
  }
  get code(): string | undefined {
    return this.error.data?.code;
  }
}

export type AgentEvent = { type: string; [k: string]: unknown };
export type PermissionHandler = (params: any) => unknown | Promise<unknown>;

function procStat(pid: number): { ppid: number; pgid: number; state: string } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]) };
  } catch {
    return null;
  }
}

function isGuard(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("supervise/guard-main.js");
  } catch {
    return false;
  }
}

/** Live (non-zombie) members of process group `pgid`. */
export function groupAlive(pgid: number): number[] {
  const out: number[] = [];
  for (const n of readdirSync("/proc")) {
    if (!/^\d+$/.test(n)) continue;
    const st = procStat(Number(n));
    if (st && st.pgid === pgid && st.state !== "Z" && st.state !== "X") out.push(Number(n));
  }
  return out;
}

export class Host {
  readonly host: TestHost;
  readonly child: ChildProcessWithoutNullStreams;
  readonly events: { sessionId: string; event: AgentEvent }[] = [];
  readonly permissionRequests: any[] = [];
  /** Sessions opened through `open()`. */
  readonly opened: string[] = [];
  onPermission: PermissionHandler = () => ({ cancelled: true });
  /** Process groups of everything the sidecar started (seen while it ran). */
  readonly groups = new Set<number>();
  private watcher: NodeJS.Timeout;
  readonly exited: Promise<number | null>;
  private listeners = new Set<() => void>();

  constructor(args: string[] = [], env: Record<string, string | undefined> = process.env) {
    this.host = new TestHost({
      args,
      env,
      onMessage: (msg) => {
        if (msg.method !== "session/event") return;
        this.events.push(msg.params);
        for (const l of this.listeners) l();
      },
      onPermission: (params) => {
        this.permissionRequests.push(params);
        return Promise.resolve(this.onPermission(params)).then(
          (result) => ({ result }),
          (e) => ({ error: { code: -32000, message: String(e) } }),
        );
      },
    });
    this.child = this.host.proc;
    this.exited = this.host.exited;
    this.watcher = setInterval(() => this.scan(), 25);
  }

  get transcript(): string[] {
    return this.host.transcript;
  }

  get stderrLines(): string[] {
    return this.host.stderr.split("\n").filter(Boolean);
  }

  /** Records the process groups of the sidecar's descendants; answers how many are alive. */
  scan(): number {
    const root = this.child.pid;
    if (!root) return 0;
    const kids = new Map<number, number[]>();
    for (const n of readdirSync("/proc")) {
      if (!/^\d+$/.test(n)) continue;
      const st = procStat(Number(n));
      if (!st) continue;
      const list = kids.get(st.ppid) ?? [];
      list.push(Number(n));
      kids.set(st.ppid, list);
    }
    const own = procStat(root)?.pgid;
    const queue = [...(kids.get(root) ?? [])];
    let alive = 0;
    while (queue.length) {
      const p = queue.shift()!;
      const st = procStat(p);
      // The sidecar's guard (src/supervise/guard-main.ts) lives as long as the sidecar.
      if (isGuard(p)) continue;
      if (st && st.pgid !== own && st.pgid !== root) {
        this.groups.add(st.pgid);
        if (st.state !== "Z") alive++;
      }
      queue.push(...(kids.get(p) ?? []));
    }
    return alive;
  }

  send(msg: unknown): void {
    this.host.write(msg);
  }

  /** Resolves with the result; a JSON-RPC error rejects with RpcFailure. */
  async request<T = any>(method: string, params: unknown = {}): Promise<T> {
    const r = await this.host.call(method, params);
    if (r.error) throw new RpcFailure(r.error as RpcError);
    return r.result as T;
  }

  /** Events of one session, in order. */
  eventsOf(sessionId: string): AgentEvent[] {
    return this.events.filter((e) => e.sessionId === sessionId).map((e) => e.event);
  }

  /** Resolves once an event matching `pred` has arrived (or rejects after `ms`). */
  waitForEvent(pred: (e: AgentEvent, sessionId: string) => boolean, ms = 10_000): Promise<AgentEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.events.find((e) => pred(e.event, e.sessionId));
        if (hit) {
          this.listeners.delete(check);
          clearTimeout(timer);
          resolve(hit.event);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`no matching event within ${ms} ms`));
      }, ms);
      if (!check()) this.listeners.add(check);
    });
  }

  /** Every process group the sidecar started that still has a live member. */
  leftovers(): number[] {
    this.scan();
    // A scan may have caught the guard between fork and exec, before it looked like one.
    return [...this.groups].filter((g) => !isGuard(g) && groupAlive(g).length > 0);
  }

  /**
   * R-CANCEL-1 for a running CLI turn `turn` of `sessionId`: cancels it and checks that it
   * settled cancelled within 10 s and that every process group that ran is gone. Returns
   * how long the cancel took to settle, in ms.
   */
  async cancelRunningTurn(sessionId: string, turn: Promise<{ stopReason: string }>): Promise<number> {
    const groups = this.leftovers();
    assert.ok(groups.length > 0, "the CLI runs");
    const t0 = Date.now();
    await this.request("session/cancel", { sessionId });
    const out = await turn;
    const ms = Date.now() - t0;
    assert.equal(out.stopReason, "cancelled");
    assert.ok(ms < 10_000, `cancel settled in ${ms} ms`);
    for (const g of groups) assert.deepEqual(groupAlive(g), [], `group ${g} is gone`);
    return ms;
  }

  /** Closes stdin (the sidecar closes every session and exits); kills it after `ms`. */
  async shutdown(ms = 20_000): Promise<number | null> {
    this.scan();
    if (this.child.exitCode === null) this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), ms);
    const code = await this.exited;
    clearTimeout(timer);
    clearInterval(this.watcher);
    return code;
  }

  /** For failure messages: the wire transcript and the sidecar's stderr. */
  dump(): string {
    return `--- wire\n${this.transcript.slice(-60).join("\n")}\n--- stderr\n${this.stderrLines.slice(-40).join("\n")}`;
  }
}

/** An AgentSpec for the cli lane running `node <script>` (absolute paths: no PATH needed). */
export function nodeSpec(driver: string, script: string, extra: Record<string, unknown> = {}, set: Record<string, string> = {}): Record<string, unknown> {
  return {
    id: `fake-${driver}`,
    lane: "cli",
    driver,
    command: { program: process.execPath, args: [script], env: { policy: "sanitized", inherit: ["PATH", "HOME", "TMPDIR"], set } },
    ...extra,
  };
}

export const text = (events: AgentEvent[], type = "messageChunk") =>
  events
    .filter((e) => e.type === type)
    .map((e) => e.text)
    .join("");

/**
 * Runs `fn` against a fresh sidecar. Afterwards every session it opened is closed and no
 * process the sidecar started may be left (checked before the sidecar exits, whose own
 * exit hook would otherwise hide a leak); failures carry the wire transcript.
 */
export async function withHost(fn: (h: Host) => Promise<void>, opts: { args?: string[]; env?: Record<string, string | undefined> } = {}): Promise<void> {
  const h = new Host(opts.args, opts.env);
  let failure: unknown;
  try {
    await fn(h);
  } catch (e) {
    failure = e;
  }
  try {
    const ids = [...new Set(h.opened)];
    await Promise.all(ids.map((id) => h.request("session/close", { sessionId: id }).catch(() => undefined)));
    const left = h.leftovers();
    if (!failure && left.length) failure = new Error(`process groups left behind after close: ${left.join(", ")}`);
  } finally {
    await h.shutdown();
  }
  if (failure) {
    if (failure instanceof Error) failure.message += `\n${h.dump()}`;
    throw failure;
  }
}

/** session/open, remembering the id for the cleanup check. */
export async function open(h: Host, params: Record<string, unknown>): Promise<any> {
  const r = await h.request("session/open", params);
  h.opened.push(r.sessionId);
  return r;
}

/**
 * One sidecar for a whole `describe` (starting one costs about a second): returns a
 * runner like `withHost` that resets the host's records before each test, and after it
 * closes the sessions the test opened and checks that no process is left.
 */
export function sharedHost(opts: { args?: string[]; env?: Record<string, string | undefined> } = {}): (fn: (h: Host) => Promise<void>) => Promise<void> {
  let host: Host | undefined;
  before(() => {
    host = new Host(opts.args, opts.env);
  });
  after(async () => {
    await host?.shutdown();
  });
  return async (fn) => {
    const h = host!;
    // The previous test's agents may still be on their way out (a stop after a failed
    // turn): let them go before recording what this test starts.
    for (let i = 0; i < 120 && h.scan() > 0; i++) await new Promise((r) => setTimeout(r, 25));
    h.events.length = 0;
    h.permissionRequests.length = 0;
    h.groups.clear();
    h.onPermission = () => ({ cancelled: true });
    const first = h.opened.length;
    let failure: unknown;
    try {
      await fn(h);
    } catch (e) {
      failure = e;
    }
    const ids = h.opened.slice(first);
    await Promise.all(ids.map((id) => h.request("session/close", { sessionId: id }).catch(() => undefined)));
    const left = h.leftovers();
    if (!failure && left.length) failure = new Error(`process groups left behind after close: ${left.join(", ")}`);
    if (failure) {
      if (failure instanceof Error) failure.message += `\n${h.dump()}`;
      throw failure;
    }
  };
}
