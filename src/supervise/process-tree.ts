// Finding and ending a process tree: the group an agent was started in, plus any
// descendant that left the group (setsid, setpgid). Linux reads /proc; elsewhere only
// the process group is known.
import { readFileSync, readdirSync } from "node:fs";

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  /** Start time in clock ticks since boot: tells a pid apart from a later reuse of it. */
  start: number;
}

const HAS_PROC = process.platform === "linux";

export function readProc(pid: number): ProcInfo | null {
  if (!HAS_PROC) return null;
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // The command name may hold spaces and parentheses: fields start after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pid, state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]), start: Number(rest[19]) };
}

/**
 * Runs `fn` with errors made without a stack trace: the errors of processes that vanished
 * (a /proc read, a signal to a gone group) are many when 500 sessions close, and capturing
 * each stack cost more than the call.
 */
export function withoutStacks<T>(fn: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return fn();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A /proc file's text, or null once the process is gone. */
export function readOrNull(file: string): string | null {
  return withoutStacks(() => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return null;
    }
  });
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  const tasks = withoutStacks(() => {
    try {
      return readdirSync(`/proc/${pid}/task`);
    } catch {
      return [];
    }
  });
  for (const t of tasks) {
    // null: the task ended meanwhile.
    const txt = readOrNull(`/proc/${pid}/task/${t}/children`)?.trim();
    if (txt) for (const c of txt.split(" ")) out.push(Number(c));
  }
  return out;
}

/** Every live descendant of `pid` (not `pid` itself), found through /proc. */
export function descendants(pid: number): ProcInfo[] {
  if (!HAS_PROC) return [];
  const out: ProcInfo[] = [];
  const queue = [pid];
  const seen = new Set<number>([pid]);
  while (queue.length) {
    const p = queue.shift()!;
    for (const c of childrenOf(p)) {
      if (seen.has(c)) continue;
      seen.add(c);
      const info = readProc(c);
      if (info) out.push(info);
      queue.push(c);
    }
  }
  return out;
}

/** True while `info` is still the same process and has not exited (zombies count as exited). */
export function stillRunning(info: ProcInfo): boolean {
  const now = readProc(info.pid);
  return !!now && now.start === info.start && now.state !== "Z" && now.state !== "X";
}

// One pass over /proc, indexed by process group, shared by every caller until it is older
// than four times what it cost, and for the rest of the loop's turn it was made in:
// hundreds of stop ladders polling their groups at once then spend at most a fifth of the
// time scanning, instead of one whole scan per ladder per poll (which made closing N
// sessions cost N² reads). A stale entry is checked again with one read of its own
// (stillRunning), and a group's leader is always read fresh.
let snap: { at: number; byPgid: Map<number, ProcInfo[]> } | null = null;
let snapCostMs = 0;
const snapThisTurn = thisTurn();

function groupsSnapshot(): Map<number, ProcInfo[]> {
  const t0 = Date.now();
  if (snap && (snapThisTurn.valid() || t0 - snap.at <= 4 * snapCostMs)) return snap.byPgid;
  const byPgid = new Map<number, ProcInfo[]>();
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const info = readProc(Number(name));
    if (!info || info.state === "Z" || info.state === "X") continue;
    const list = byPgid.get(info.pgid);
    if (list) list.push(info);
    else byPgid.set(info.pgid, [info]);
  }
  const t1 = Date.now();
  snapCostMs = t1 - t0;
  snap = { at: t1, byPgid };
  snapThisTurn.mark();
  return byPgid;
}

/**
 * Whether something was made in the current turn of the event loop: until the loop moves on,
 * no EOF, signal or exit the sidecar caused has been acted on (500 ladders starting in one
 * turn need one look at /proc, not one per 50 ms of their own work).
 */
export function thisTurn(): { mark(): void; valid(): boolean } {
  let valid = false;
  return {
    mark() {
      if (valid) return;
      valid = true;
      setImmediate(() => (valid = false)).unref();
    },
    valid: () => valid,
  };
}

/** Sends `signal` to `target` (a pid, or -pgid for a group); the error code when that failed (ESRCH: nothing there, EPERM: not ours). */
export function trySignal(target: number, signal: NodeJS.Signals | 0): string | null {
  return withoutStacks(() => {
    try {
      process.kill(target, signal);
      return null;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code ?? "EINVAL";
    }
  });
}

/** Live (non-zombie) members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  // EPERM: a member we may not signal exists.
  if (trySignal(-pgid, 0) === "ESRCH") return [];
  if (!HAS_PROC) return [pgid];
  // Something answers: look closer, since zombies waiting for a reaper answer too.
  const out = (groupsSnapshot().get(pgid) ?? []).filter(stillRunning).map((p) => p.pid);
  if (!out.includes(pgid)) {
    const leader = readProc(pgid);
    if (leader && leader.pgid === pgid && leader.state !== "Z" && leader.state !== "X") out.push(pgid);
  }
  return out;
}

/** Groups that stragglers lead themselves (a daemonised grandchild and its children). */
function strayGroups(pgid: number, stragglers: ProcInfo[]): number[] {
  const groups = new Set<number>();
  for (const s of stragglers) if (s.pgid !== pgid && s.pgid === s.pid) groups.add(s.pgid);
  return [...groups];
}

/**
 * Sends `signal` to the group, to the groups stragglers lead, and to each other straggler
 * that is still the same process. `spare`: pids of the group that must not get it (a
 * sandbox's monitors): the group's other members are then signalled one by one.
 */
export function signalTree(pgid: number, stragglers: ProcInfo[], signal: NodeJS.Signals, spare?: ReadonlySet<number>): void {
  const targets = spare?.size ? [...groupMembers(pgid).filter((p) => !spare.has(p)), ...strayGroups(pgid, stragglers).map((g) => -g)] : [pgid, ...strayGroups(pgid, stragglers)].map((g) => -g);
  // A target that is gone (ESRCH) or not ours fails quietly.
  for (const t of targets) trySignal(t, signal);
  for (const s of stragglers) if (s.pgid !== pgid && stillRunning(s)) trySignal(s.pid, signal);
}

/** What is still alive of a tree: members of its groups, and stragglers. */
export function treeSurvivors(pgid: number, stragglers: ProcInfo[]): number[] {
  const alive = new Set<number>();
  for (const g of [pgid, ...strayGroups(pgid, stragglers)]) for (const p of groupMembers(g)) alive.add(p);
  for (const s of stragglers) if (s.pgid !== pgid && stillRunning(s)) alive.add(s.pid);
  return [...alive];
}

/** True when `pid` has exited, even if nobody has reaped it yet. */
export function hasExited(pid: number): boolean {
  if (!HAS_PROC) return trySignal(pid, 0) !== null;
  const info = readProc(pid);
  return !info || info.state === "Z" || info.state === "X";
}
