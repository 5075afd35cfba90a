// A child process the sidecar owns: started in its own process group, stderr always
// drained (its tail kept for errors), and ended by one stop ladder — close stdin, wait,
// SIGTERM the tree, wait, SIGKILL, then check that nothing of it is left (R-SUP-1).
// The tree is the group, the descendants seen leaving it, and every process carrying the
// child's cookie (R-SUP-5); the ladder runs by itself as soon as the child exits (R-SUP-3),
// and the sidecar's guard ends the tree if the sidecar dies first (R-SUP-4).
//
// A sandboxed child (R-SANDBOX-1) is bubblewrap: a monitor, and inside a new process
// namespace its init, then the command. Both bubblewrap processes die on SIGTERM and take the
// whole namespace with them (SIGKILL), so the ladder's SIGTERM goes to every other process of
// the group and spares the two: the command gets its graceful exit as it would unsandboxed.
// Bubblewrap reports a command killed by signal N as exit code 128+N: turned back here.
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { noteCleanup } from "./cleanup-count.js";
import { processesWithCookie } from "./cookie.js";
import { sidecarGuard } from "./guard.js";
import { Lineage } from "./lineage.js";
import { descendants, hasExited, readProc, signalTree, stillRunning, treeSurvivors, type ProcInfo } from "./process-tree.js";

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StopOptions {
  /** After closing stdin, how long the process may take to exit by itself. Default 1500. */
  stdinGraceMs?: number;
  /** After SIGTERM, how long before SIGKILL. Default 2000. */
  termGraceMs?: number;
  /** After SIGKILL, how long to wait for the tree to disappear. Default 3000. */
  killGraceMs?: number;
}

export interface StopResult {
  /** Nothing of the tree is left. */
  clean: boolean;
  /** Pids still alive when stop gave up. */
  survivors: number[];
  /** The ladder steps taken, e.g. ["stdin", "SIGTERM"]. */
  steps: string[];
  exit: ExitInfo | null;
  /** Processes of the tree alive when the ladder began (or found during it) that are gone now. */
  ended: number;
  /** How many of them were still alive when SIGKILL was sent. */
  killed: number;
}

export const STDERR_TAIL_BYTES = 64 * 1024;
const MAX_STDERR_LINE = 64 * 1024;
const POLL_MS = 20;

/**
 * How often a ladder looks whether its tree is gone: every 20 ms, slower when many ladders
 * run at once (2,000 closing sessions poll about 10 times a millisecond in all, not 100).
 */
const pollMs = () => Math.max(POLL_MS, Math.ceil(live.size / 10));
const DEFAULT_STOP: Required<StopOptions> = { stdinGraceMs: 1500, termGraceMs: 2000, killGraceMs: 3000 };

// The test suites' one hook into the ladder: A4AA_TEST_GRACE_MS caps the stdin and SIGTERM
// graces, so that a test whose agent ignores EOF or SIGTERM does not wait out seconds.
const TEST_GRACE_MS = Number(process.env.A4AA_TEST_GRACE_MS) || undefined;
const testGraces = (o: StopOptions): StopOptions =>
  TEST_GRACE_MS ? { ...o, stdinGraceMs: Math.min(o.stdinGraceMs ?? 1500, TEST_GRACE_MS), termGraceMs: Math.min(o.termGraceMs ?? 2000, TEST_GRACE_MS) } : o;

// Every tree not yet stopped. If the sidecar itself dies (a bug, an uncaught error), the
// 'exit' hook still kills them: no agent outlives the sidecar.
const live = new Set<SupervisedProcess>();
process.on("exit", () => {
  for (const p of live) signalTree(p.pgid, [], "SIGKILL");
});

/** Trees started and not yet fully stopped (for diagnostics and tests). */
export function liveProcessCount(): number {
  return live.size;
}

export abstract class SupervisedProcess {
  exit: ExitInfo | null = null;
  readonly exited: Promise<ExitInfo>;
  private resolveExit!: (e: ExitInfo) => void;
  private stopping: Promise<StopResult> | null = null;
  private tail = "";
  private partial = "";
  private readonly stderrListeners = new Set<(line: string) => void>();
  private readonly decoder = new StringDecoder("utf8");
  /** Descendants seen while the process ran: found again at stop even if they left the group. */
  readonly lineage: Lineage;

  protected constructor(
    readonly pid: number,
    readonly name: string,
    /** The value of A4AA_AGENT_COOKIE in the child's environment. */
    readonly cookie: string,
    /** The child is a sandbox's monitor (bubblewrap) running the command inside. */
    readonly sandboxed = false,
  ) {
    this.exited = new Promise((r) => (this.resolveExit = r));
    live.add(this);
    sidecarGuard.watch(this.pgid, readProc(pid)?.start ?? 0);
    this.lineage = new Lineage(pid);
  }

  /** Records the current descendants at a turn boundary (lanes call it). */
  noteDescendants(): void {
    if (this.running) this.lineage.turnBoundary();
  }

  /** The process group: the child is its leader. */
  get pgid(): number {
    return this.pid;
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** The last 64 KiB of what the process wrote to stderr. */
  stderrTail(): string {
    return (this.tail + this.partial).slice(-STDERR_TAIL_BYTES);
  }

  /**
   * How the process ended (`what` follows it, e.g. "before ending the turn") and the tail of
   * its stderr, for an error's detail: "exited with code 3 before …; stderr tail:\n…".
   */
  exitSummary(what?: string): string {
    const e = this.exit;
    const how = !e ? "is still running" : e.signal ? `was killed by ${e.signal}` : `exited with code ${e.code}`;
    const tail = this.stderrTail().trimEnd();
    return `${how}${what ? ` ${what}` : ""}${tail ? `; stderr tail:\n${tail}` : " (no stderr output)"}`;
  }

  /** Calls `cb` with each complete stderr line; returns the unsubscribe function. */
  onStderrLine(cb: (line: string) => void): () => void {
    this.stderrListeners.add(cb);
    return () => this.stderrListeners.delete(cb);
  }

  protected handleExit(info: ExitInfo): void {
    if (this.exit) return;
    if (this.sandboxed) info = unwrapExit(info);
    this.lineage.stop();
    this.flushStderr();
    this.exit = info;
    this.resolveExit(info);
  }

  protected handleStderr(chunk: Buffer | string): void {
    const text = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    if (!text) return;
    this.tail = (this.tail + text).slice(-STDERR_TAIL_BYTES);
    let s = this.partial + text;
    let nl: number;
    while ((nl = s.indexOf("\n")) !== -1) {
      this.emitStderr(s.slice(0, nl).replace(/\r$/, ""));
      s = s.slice(nl + 1);
    }
    // A line with no end in sight is passed on in pieces rather than held forever.
    while (s.length > MAX_STDERR_LINE) {
      this.emitStderr(s.slice(0, MAX_STDERR_LINE));
      s = s.slice(MAX_STDERR_LINE);
    }
    this.partial = s;
  }

  private flushStderr(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = "";
    if (rest) this.emitStderr(rest.replace(/\r$/, ""));
  }

  private emitStderr(line: string): void {
    for (const l of this.stderrListeners) l(line);
  }

  /** A sandbox's two bubblewrap processes: the child and its own child (the namespace's init). */
  private monitors(): Set<number> {
    return new Set([this.pid, ...descendants(this.pid).filter((d) => d.ppid === this.pid).map((d) => d.pid)]);
  }

  /** Closes the child's input (stdin EOF, or EOF on the PTY). */
  protected abstract closeInput(): void;

  /**
   * R-SUP-3: the child's main process exited (before its exit is reported: stderr may be
   * held open by what is left). Whatever is left of its tree is ended now, not at close.
   */
  protected leaderExited(): Promise<unknown> {
    return this.stop({ stdinGraceMs: 0 });
  }

  /**
   * Ends the whole tree. Idempotent: concurrent and later calls share one ladder; a later
   * caller's shorter grace periods apply from then on (the shortest asked for wins, e.g. a
   * cancel's 0 ms stdin grace cuts short a close's 1.5 s). Resolves (never rejects) with
   * whether anything is left.
   */
  stop(opts: StopOptions = {}): Promise<StopResult> {
    const o = this.stopOpts;
    // The first caller's options (defaults filled in); a later caller's only where it names a shorter one.
    const pick = (k: keyof StopOptions) => (o ? Math.min(o[k], opts[k] ?? Infinity) : (opts[k] ?? DEFAULT_STOP[k]));
    this.stopOpts = testGraces({ stdinGraceMs: pick("stdinGraceMs"), termGraceMs: pick("termGraceMs"), killGraceMs: pick("killGraceMs") }) as Required<StopOptions>;
    if (o) this.wakeLadder();
    this.stopping ??= this.ladder();
    noteCleanup(this.stopping);
    return this.stopping;
  }

  /**
   * The one way to interrupt a process (a cancelled turn): SIGTERM to the whole tree now (no
   * stdin grace), SIGKILL after `termGraceMs` — the stop ladder, joined or started.
   */
  interrupt(termGraceMs?: number): Promise<StopResult> {
    return this.stop({ stdinGraceMs: 0, termGraceMs });
  }

  private stopOpts: Required<StopOptions> | null = null;
  private wakers = new Set<() => void>();

  private wakeLadder(): void {
    for (const w of this.wakers) w();
    this.wakers.clear();
  }


  /** Waits until `since + grace()` (re-read whenever a later stop() shortens it) or until `until` settles. */
  private async graceFrom(since: number, grace: () => number, until: Promise<unknown> | null, done?: () => boolean): Promise<void> {
    for (;;) {
      if (done?.()) return;
      const left = since + grace() - Date.now();
      if (left <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<void>((r) => (timer = setTimeout(r, done ? Math.min(left, pollMs()) : left)));
      let wake!: () => void;
      const changed = new Promise<void>((r) => this.wakers.add((wake = r)));
      const settled = await Promise.race([...(until ? [until.then(() => true)] : []), tick.then(() => false), changed.then(() => false)]);
      // Cleared, or the sidecar could not exit until the grace period had passed anyway.
      clearTimeout(timer);
      this.wakers.delete(wake);
      if (settled) return;
    }
  }

  private async ladder(): Promise<StopResult> {
    const opts = () => this.stopOpts!;
    const steps: string[] = [];
    // Descendants that moved to another group are found through their parents: look
    // before anyone exits and the lineage is lost.
    const atStart = this.running ? descendants(this.pid) : [];
    this.lineage.add(atStart);
    const fresh = new Set(atStart);
    const stragglers: ProcInfo[] = [...this.lineage.known.values()].filter((p) => fresh.has(p) || stillRunning(p));
    // Every process of the tree the ladder saw alive, by pid and start time (for the counts).
    const seen = new Map<string, ProcInfo>();
    const see = (p: ProcInfo) => seen.set(`${p.pid}:${p.start}`, p);
    // Cheap enough for 500 ladders at once: lineage and the (shared) cookie scan, no walk of
    // all of /proc per group; members that are neither are counted if they outlast SIGTERM.
    // `lineageNow`: descendants just read (the first look), not read again.
    const look = (wholeGroup = false, lineageNow?: ProcInfo[]) => {
      // The cookie finds what left the group whenever it left; lineage finds what dropped the cookie.
      const info = readProc(this.pid);
      const leader = info && info.state !== "Z" && info.state !== "X" ? info : null;
      if (leader) see(leader);
      const found = [...processesWithCookie(this.cookie), ...(leader ? (lineageNow ?? descendants(this.pid)) : [])];
      for (const d of found) {
        if (d.pid === this.pid) continue;
        see(d);
        if (!stragglers.some((x) => x.pid === d.pid && x.start === d.start)) stragglers.push(d);
      }
      if (!wholeGroup) return;
      for (const pid of treeSurvivors(this.pgid, stragglers)) {
        const info = readProc(pid);
        if (info) see(info);
      }
    };
    const aliveKeys = () => [...seen].filter(([, p]) => stillRunning(p)).map(([k]) => k);
    const killedKeys = new Set<string>();
    // The kernel's word, not the exit event's: under load Node may report an exit late.
    const leaderGone = () => !this.running || hasExited(this.pid);
    const gone = () => leaderGone() && treeSurvivors(this.pgid, stragglers).length === 0;
    look(false, atStart);

    steps.push("stdin");
    this.closeInput();
    await this.graceFrom(Date.now(), () => opts().stdinGraceMs, this.exited);
    // The agent may have started more children since: look again.
    look();
    if (!gone()) {
      steps.push("SIGTERM");
      signalTree(this.pgid, stragglers, "SIGTERM", this.sandboxed ? this.monitors() : undefined);
      await this.graceFrom(Date.now(), () => opts().termGraceMs, null, gone);
      look();
    }
    if (!gone()) {
      steps.push("SIGKILL");
      look(true);
      for (const k of aliveKeys()) killedKeys.add(k);
      signalTree(this.pgid, stragglers, "SIGKILL");
      await this.graceFrom(Date.now(), () => opts().killGraceMs, null, gone);
      // A fork that raced the signal carries the cookie too: one more round for it.
      const before = stragglers.length;
      look();
      if (stragglers.length > before && !gone()) {
        for (const k of aliveKeys()) killedKeys.add(k);
        signalTree(this.pgid, stragglers, "SIGKILL");
        await this.graceFrom(Date.now(), () => opts().killGraceMs, null, gone);
      }
    }
    const survivors = treeSurvivors(this.pgid, stragglers);
    if (!leaderGone()) survivors.push(this.pid);
    if (survivors.length === 0) {
      live.delete(this);
      sidecarGuard.release(this.pgid);
    }
    const still = new Set(aliveKeys());
    const ended = seen.size - still.size;
    const killed = [...killedKeys].filter((k) => !still.has(k)).length;
    return { clean: survivors.length === 0, survivors: [...new Set(survivors)], steps, exit: this.exit, ended, killed };
  }
}

/** Bubblewrap exits 128+N when its command was killed by signal N: the command's own exit. */
export function unwrapExit(info: ExitInfo): ExitInfo {
  if (info.code === null || info.code <= 128) return info;
  const sig = (Object.entries(constants.signals) as [NodeJS.Signals, number][]).find(([, n]) => n === info.code! - 128)?.[0];
  return sig ? { code: null, signal: sig } : info;
}
