// Running a real agent directly (no a4aa) for smoke tests and transcripts: a bounded
// headless turn, and a minimal ACP client over stdio. Every process is started in its own
// process group (detached) and the whole group is killed when done.
import { spawn, type ChildProcess } from "node:child_process";
import { RpcResponseError } from "../../src/transport/json-rpc.js";
import { NdjsonPeer } from "../../src/transport/ndjson-peer.js";
import type { AgentName, AgentRun } from "./agents.js";

export interface HeadlessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout lines that parse as JSON objects. */
  events: any[];
  /** stdout lines that do not. */
  otherLines: string[];
  timedOut: boolean;
  ms: number;
}

/**
 * The assistant text of a headless turn, from its JSON events, per CLI: claude/qwen
 * `result.result` (else assistant text blocks), codex `agent_message` items, gemini assistant
 * `message` deltas, opencode `text` parts.
 */
export function agentText(name: AgentName, events: any[]): string {
  switch (name) {
    case "claude":
    case "qwen": {
      const result = events.find((e) => e.type === "result" && typeof e.result === "string");
      if (result) return result.result;
      return events
        .filter((e) => e.type === "assistant")
        .flatMap((e) => e.message?.content ?? [])
        .filter((b: any) => b.type === "text")
        .map((b: any) => b.text)
        .join("");
    }
    case "codex":
      return events
        .filter((e) => e.type === "item.completed" && e.item?.type === "agent_message")
        .map((e) => e.item.text)
        .join("\n");
    case "gemini":
      return events
        .filter((e) => e.type === "message" && e.role === "assistant")
        .map((e) => e.content)
        .join("");
    case "opencode":
      return events
        .filter((e) => e.type === "text")
        .map((e) => e.part?.text ?? "")
        .join("");
    default:
      return "";
  }
}

/** Kills a detached child's whole process group (ignores "no such process"). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

export function parseJsonLines(text: string): { events: any[]; other: string[] } {
  const events: any[] = [];
  const other: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line);
      if (v && typeof v === "object") events.push(v);
      else other.push(line);
    } catch {
      other.push(line);
    }
  }
  return { events, other };
}

/**
 * Runs `program args` with stdin closed, in the run's cwd and env, and resolves when it
 * exits (or after `timeoutMs`, when the group is killed). The group is always killed at the
 * end so no grandchild is left behind.
 */
export function runHeadless(
  run: AgentRun,
  args: string[],
  opts: { timeoutMs?: number; env?: Record<string, string>; onLine?: (line: string, child: ChildProcess) => void } = {},
): Promise<HeadlessResult> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(run.program, args, {
      cwd: run.cwd,
      env: run.spawnEnv(opts.env),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let pending = "";
    let timedOut = false;
    child.stdout!.setEncoding("utf8");
    child.stderr!.setEncoding("utf8");
    child.stdout!.on("data", (c: string) => {
      stdout += c;
      if (opts.onLine) {
        pending += c;
        let i: number;
        while ((i = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, i);
          pending = pending.slice(i + 1);
          opts.onLine(line, child);
        }
      }
    });
    child.stderr!.on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, "SIGKILL");
    }, opts.timeoutMs ?? 90_000);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      killGroup(child, "SIGKILL");
      const { events, other } = parseJsonLines(stdout);
      resolve({ code, signal, stdout, stderr, events, otherLines: other, timedOut, ms: Date.now() - t0 });
    });
  });
}

/** One JSON-RPC message as seen on the wire, with its direction, for transcripts. */
export interface WireMessage {
  dir: "send" | "recv";
  msg: any;
}

/**
 * A minimal ACP (JSON-RPC 2.0, one message per line) client for smoke tests, on the
 * project's NdjsonPeer. Requests from the agent are answered by `onRequest` (default:
 * permission → first allow option, anything else → method not found).
 */
export class AcpStdioClient {
  readonly child: ChildProcess;
  readonly wire: WireMessage[] = [];
  readonly updates: any[] = [];
  stderr = "";
  private readonly link: NdjsonPeer;
  private exitError: Error | null = null;
  private exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  onRequest: (method: string, params: any) => any = (method, params) => {
    if (method === "session/request_permission") {
      const opts: any[] = params?.options ?? [];
      const pick = opts.find((o) => o.kind === "allow_once") ?? opts.find((o) => String(o.kind).startsWith("allow")) ?? opts[0];
      return pick ? { outcome: { outcome: "selected", optionId: pick.optionId } } : { outcome: { outcome: "cancelled" } };
    }
    throw Object.assign(new Error(`method not found: ${method}`), { code: -32601 });
  };

  constructor(run: AgentRun, extraArgs: string[] = []) {
    this.child = spawn(run.program, [...run.args, ...extraArgs], {
      cwd: run.cwd,
      env: run.spawnEnv(),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (c: string) => (this.stderr += c));
    this.link = new NdjsonPeer({
      input: this.child.stdout!,
      output: this.child.stdin!,
      maxLineBytes: 1 << 30,
      checkUtf8: false,
      batchWrites: false,
      requireVersion: false,
      writeVersion: true,
      allowBatch: false,
      onLine: (dir, line) => {
        if (dir === "out") this.wire.push({ dir: "send", msg: JSON.parse(line) });
      },
      onMessage: (msg) => this.wire.push({ dir: "recv", msg }),
      onBadLine: (bad) => this.wire.push({ dir: "recv", msg: { nonJson: bad.text ?? `<${bad.kind}>` } }),
      onRequest: (method, params) => this.onRequest(method, params),
      onNotification: (method, params) => {
        if (method === "session/update") this.updates.push(params);
      },
      toRpcError: (err: any) => ({ code: err?.code ?? -32603, message: String(err?.message ?? err) }),
      invalidRequest: (reason) => ({ code: -32600, message: reason }),
      onWriteError: () => undefined,
    });
    const fail = (e: Error) => {
      this.exitError = e;
      this.link.close(e);
    };
    this.exited = new Promise((resolve) => {
      this.child.once("close", (code, signal) => {
        fail(new Error(`agent exited (code ${code}, signal ${signal})`));
        resolve({ code, signal });
      });
    });
    this.child.once("error", fail);
  }

  request(method: string, params: unknown, timeoutMs = 60_000): Promise<any> {
    return this.link
      .request(method, params, { timeoutMs, onTimeout: () => new Error(`${method}: no answer within ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`) })
      .catch((e: unknown) => {
        if (e instanceof RpcResponseError) {
          const w = e.wire as { message?: string; data?: unknown };
          throw Object.assign(new Error(`${method}: ${w?.message} ${JSON.stringify(w?.data ?? "")}`), { rpc: e.wire });
        }
        if (e === this.exitError) throw new Error(`${this.exitError!.message} during ${method}; stderr: ${this.stderr.slice(-2000)}`);
        throw e;
      });
  }

  notify(method: string, params: unknown): void {
    this.link.notify(method, params);
  }

  /** The text of every `agent_message_chunk` update received so far (optionally for one session). */
  messageText(sessionId?: string): string {
    return this.updates
      .filter((u) => (!sessionId || u.sessionId === sessionId) && u.update?.sessionUpdate === "agent_message_chunk")
      .map((u) => (u.update.content?.type === "text" ? u.update.content.text : ""))
      .join("");
  }

  /** Closes stdin, waits up to `graceMs` for an exit, then kills the process group. */
  async close(graceMs = 3000): Promise<void> {
    try {
      this.child.stdin!.end();
    } catch {
      /* ignore */
    }
    const t = setTimeout(() => killGroup(this.child, "SIGTERM"), graceMs);
    const t2 = setTimeout(() => killGroup(this.child, "SIGKILL"), graceMs + 2000);
    if (this.child.exitCode === null && this.child.signalCode === null) await this.exited;
    clearTimeout(t);
    clearTimeout(t2);
    killGroup(this.child, "SIGKILL");
  }
}
