// Finding the processes a test started, from the outside, through /proc: every agent a
// test starts carries a marker variable in its environment (set through the spec's env
// policy), so leftovers are found whatever the implementation does to supervise them.
import { randomUUID } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";

/** A fresh marker value. */
export function newMarker(): string {
  return `m${process.env.A4AA_TEST_RUN ?? ""}${randomUUID().replace(/-/g, "")}`;
}

/** Live (non-zombie) processes, other than this one, for which `match` holds. */
export function liveProcesses(match: (pid: number) => boolean): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const state = stat.charAt(stat.lastIndexOf(")") + 2);
      if (state === "Z" || state === "X") continue;
      if (match(Number(name))) out.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** Live processes whose environment holds `name=value`. */
export function processesWithVar(name: string, value: string): number[] {
  const needle = `${name}=${value}`;
  return liveProcesses((pid) => readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(needle));
}

/** Live processes marked with A4AA_TEST_MARKER=`marker`. */
export function processesWithMarker(marker: string): number[] {
  return processesWithVar("A4AA_TEST_MARKER", marker);
}

/** Live processes whose command line mentions `needle` (e.g. a scratch directory). */
export function processesMentioning(needle: string): number[] {
  return liveProcesses((pid) => readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(needle));
}

/** Waits until `find()` is empty; returns what is left after `timeoutMs`. */
export async function waitGone(find: () => number[], timeoutMs = 5000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = find();
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = find();
  }
  return left;
}

/** Polls `pred` every 20 ms until it holds; throws after `timeoutMs` (for what no event announces). */
export async function poll(pred: () => boolean, timeoutMs = 10_000, what = "a condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The process ignores SIGTERM (its SigIgn mask in /proc): a shell's `trap '' TERM` has run. */
export function ignoresTerm(pid: number): boolean {
  try {
    const m = /SigIgn:\s*([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return !!m && ((BigInt(`0x${m[1]}`) >> 14n) & 1n) === 1n;
  } catch {
    return false;
  }
}

export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** The parent pid of `pid`, or undefined when it is gone (a process can end between a listing and this read). */
export function parentPid(pid: number): number | undefined {
  try {
    const ppid = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}
