// What an implementation leaves running, seen from outside through /proc: every agent a
// check starts carries an env marker (set through the spec's env policy), so leftovers
// are found without knowing how the implementation supervises them.
import { readFileSync, readdirSync } from "node:fs";
import { killAll, processesWithVar, waitGone } from "../../helpers/procs.js";

export const MARKER_VAR = "A4AA_CONFORMANCE_MARKER";

interface Stat {
  pid: number;
  ppid: number;
  state: string;
}

function stat(pid: number): Stat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { pid, state: rest[0], ppid: Number(rest[1]) };
  } catch {
    return null;
  }
}

function pids(): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

/** Live (non-zombie) processes whose environment carries the marker. */
export function markedProcesses(marker: string): number[] {
  return processesWithVar(MARKER_VAR, marker);
}

/** A short description of processes, for failure messages. */
export function describe(list: number[]): string {
  return list
    .map((pid) => {
      try {
        return `${pid} (${readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim().slice(0, 100)})`;
      } catch {
        return String(pid);
      }
    })
    .join(", ");
}

/** Waits until no process carries the marker; returns the survivors after `timeoutMs`. */
export function waitNoMarked(marker: string, timeoutMs: number): Promise<number[]> {
  return waitGone(() => markedProcesses(marker), timeoutMs);
}

export function killMarked(marker: string): void {
  killAll(markedProcesses(marker));
}

/** `root` and its live descendants. */
export function tree(root: number): Stat[] {
  const all = pids()
    .map(stat)
    .filter((s): s is Stat => !!s);
  const byParent = new Map<number, Stat[]>();
  for (const s of all) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const out: Stat[] = [];
  const self = all.find((s) => s.pid === root);
  if (!self) return out;
  const queue = [self];
  while (queue.length) {
    const s = queue.shift()!;
    out.push(s);
    queue.push(...(byParent.get(s.pid) ?? []));
  }
  return out;
}

/** Zombies among `root`'s descendants: children that exited and nobody reaped. */
export function zombiesUnder(root: number): number[] {
  return tree(root)
    .filter((s) => s.pid !== root && s.state === "Z")
    .map((s) => s.pid);
}

function kb(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The sum of the peak resident sizes of `root`'s tree (bytes). */
export function treePeakRss(root: number): number {
  return tree(root).reduce((sum, s) => sum + kb(s.pid, "VmHWM"), 0);
}
