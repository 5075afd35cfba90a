// Processes the benchmarks start: every one is tracked and carries a marker in its
// environment, so that whatever happens (a timeout, an exception, Ctrl-C) the bench ends
// them all by pid before it exits. Also: /proc readers for CPU time and memory.
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { processesWithVar } from "../../test/helpers/procs.js";
import { Conn } from "./ndjson.js";

/** The repository root (this file runs as dist/bench/lib/proc.js). */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const DIST = `${ROOT}dist/`;
export const SIDECAR_BIN = `${DIST}src/cli/main.js`;

/** Every process of this bench run (and the agents the sidecars start) carries it. */
export const MARKER = `b${randomUUID().replace(/-/g, "").slice(0, 16)}`;
export const MARKER_ENV = "A4AA_BENCH_MARKER";

const live = new Set<ChildProcess>();

/** Extra node flags for sidecars (e.g. --cpu-prof), set by main from the command line. */
export const sidecarNodeFlags: string[] = [];

let aborted: Error | null = null;

/** After a suite's timeout: nothing more may be started until `allowStarts()`. */
export function refuseStarts(reason: Error): void {
  aborted = reason;
}

export function allowStarts(): void {
  aborted = null;
}

export function track(opts: SpawnOptions & { cmd: string; args: string[] }): ChildProcess {
  if (aborted) throw aborted;
  const { cmd, args, ...rest } = opts;
  const child = spawn(cmd, args, {
    stdio: ["pipe", "pipe", "pipe"],
    ...rest,
    env: { ...(rest.env ?? process.env), [MARKER_ENV]: MARKER },
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  child.once("error", () => live.delete(child));
  // A benchmark never wants an EPIPE to crash the bench.
  child.stdin?.on("error", () => undefined);
  return child;
}

/** Starts `a4aa serve` (the real bin). */
export function startSidecar(extraArgs: string[] = []): ChildProcess {
  return track({ cmd: process.execPath, args: [...sidecarNodeFlags, SIDECAR_BIN, "serve", ...extraArgs] });
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once("exit", (code) => r(code)));
}

/** Ends a child: EOF on stdin, then SIGKILL after `graceMs`. Resolves when it is gone. */
export async function stop(child: ChildProcess, graceMs = 10_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.stdin?.end();
  const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
  const code = await exited(child);
  clearTimeout(t);
  return code;
}

/** Live processes whose environment carries this run's marker (agents included). */
export function markedPids(): number[] {
  return processesWithVar(MARKER_ENV, MARKER);
}

/** Kills every process this run started (tracked children first, then anything marked). */
export function killAll(): number {
  let n = 0;
  for (const c of live) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill("SIGKILL");
      n++;
    }
  }
  for (const pid of markedPids()) {
    try {
      process.kill(pid, "SIGKILL");
      n++;
    } catch {
      // gone
    }
  }
  return n;
}

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** user+system CPU time of a process, in ms (/proc/<pid>/stat utime+stime). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields after the comm: state(3) … utime(14) stime(15) → index 11, 12
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

/** A /proc/<pid>/status memory field (VmRSS, VmHWM, …) in bytes. */
export function memBytes(pid: number, field: "VmRSS" | "VmHWM"): number {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(s);
  if (!m) throw new Error(`no ${field} for pid ${pid}`);
  return Number(m[1]) * 1024;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Rejects after `ms` with a clear message (the caller kills what it started). */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}

export const MiB = 1024 * 1024;

/** `serve` flags leaving room for `n` agents under --max-agent-processes (default 256). */
export const roomFor = (n: number): string[] => ["--max-agent-processes", String(n + 16)];

/** A stdio sidecar with room for `n` agents, answering and settled: its VmRSS before any session. */
export async function settledSidecar(n: number): Promise<{ side: ChildProcess; conn: Conn; rssBefore: number }> {
  const side = startSidecar(roomFor(n));
  try {
    const conn = new Conn(side.stdin!, side.stdout!);
    await conn.ok("ping", {});
    await sleep(200);
    return { side, conn, rssBefore: memBytes(side.pid!, "VmRSS") };
  } catch (e) {
    await stop(side, 5_000);
    throw e;
  }
}

/** Direct children of `pid` (from each /proc/<pid>/task/<tid>/children). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      const s = readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim();
      if (s) out.push(...s.split(" ").map(Number));
    }
  } catch {
    // gone
  }
  return out;
}
