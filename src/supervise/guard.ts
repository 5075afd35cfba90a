// The sidecar's side of the guard (guard-main.ts): started with the first supervised
// process (or the first temporary file written for an agent), told about each process
// group and each temporary path as it appears and once it is gone. The guard lives in its
// own session, so a signal to the host's or the sidecar's process group does not reach it;
// it only acts on the EOF of its stdin, i.e. when the sidecar is gone.
//
// An agent runs as the same user and can kill the guard. The guard is then replaced,
// without limit (at once, then with a backoff up to 2 s if it keeps dying), every group
// and path re-registered with the new one; while none runs, nothing new is started
// (`armed()` refuses, retryable) and the host is told on stderr.
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { errors, type A4aaError } from "../errors.js";
import { sidecarCookiePrefix } from "./cookie.js";

const SCRIPT = fileURLToPath(new URL("./guard-main.js", import.meta.url));
/** After SIGTERM, how long the guard waits before SIGKILL: TERM + KILL fit in R-SUP-4's 5 s. */
export const GUARD_TERM_GRACE_MS = 2000;
/** The first replacement is immediate; each quick death after that doubles the wait, up to this. */
export const GUARD_MAX_BACKOFF_MS = 2000;
const FIRST_BACKOFF_MS = 50;
/** A guard that lived this long resets the backoff. */
const STABLE_MS = 10_000;

export class SidecarGuard {
  private child: ChildProcess | null = null;
  private childStarted = 0;
  private readonly groups = new Map<number, number>();
  private readonly paths = new Set<string>();
  /** Deaths in a row of guards that lived less than STABLE_MS. */
  private quickDeaths = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private restartAt = 0;
  /** How many guards were started (tests, diagnostics). */
  starts = 0;

  /** The guard's pid, once it runs (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Fail closed: null when a guard runs (started now if needed), else the error an open or a
   * spawn answers — retryable, since a new guard is on its way.
   */
  armed(): A4aaError | null {
    if (this.child || this.start()) return null;
    const wait = Math.max(0, this.restartAt - Date.now());
    return errors.spawnFailed(
      `the supervision guard is not running (it was killed or could not start; a new one starts in ${wait} ms): nothing is started without it; retry`,
      { retryable: true },
    );
  }

  watch(pgid: number, leaderStart: number): void {
    this.groups.set(pgid, leaderStart);
    this.send(`+ ${pgid} ${leaderStart}\n`);
  }

  release(pgid: number): void {
    if (!this.groups.delete(pgid)) return;
    this.send(`- ${pgid}\n`);
  }

  /** A temporary file or folder written for an agent: the guard removes it if the sidecar dies. */
  watchPath(p: string): void {
    if (p.includes("\n")) return; // mkdtemp names never do; the line protocol could not carry it
    this.paths.add(p);
    this.send(`f ${p}\n`);
  }

  releasePath(p: string): void {
    if (!this.paths.delete(p)) return;
    this.send(`-f ${p}\n`);
  }

  /** On the sidecar's own exit (any exit Node still runs hooks for): remove the paths now. */
  removePathsNow(): void {
    for (const p of this.paths) {
      try {
        rmSync(p, { recursive: true, force: true });
      } catch {
        // the guard tries again
      }
    }
  }

  private send(line: string): void {
    const c = this.child ?? this.start();
    if (c?.stdin?.writable) c.stdin.write(line);
  }

  private start(): ChildProcess | null {
    if (this.restartTimer) return null; // backing off: the timer starts the next one
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, ["--max-old-space-size=16", "--max-semi-space-size=1", SCRIPT, String(GUARD_TERM_GRACE_MS)], {
        detached: true,
        // stderr: its one report line reaches whoever reads the sidecar's logs.
        stdio: ["pipe", "ignore", "inherit"],
        env: {},
      });
    } catch (e) {
      this.warn(`cannot start the guard process (${(e as Error).message})`);
      this.scheduleRestart();
      return null;
    }
    if (child.pid === undefined) {
      // spawn failed asynchronously ('error' follows): treat as a quick death.
      child.once("error", (e) => this.warn(`cannot start the guard process (${e.message})`));
      this.scheduleRestart();
      return null;
    }
    this.starts++;
    child.once("error", (e) => this.warn(`the guard process failed (${e.message})`));
    child.once("exit", (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      if (Date.now() - this.childStarted >= STABLE_MS) this.quickDeaths = 0;
      this.scheduleRestart(`the guard process ${child.pid} ended (${signal ?? `code ${code}`}); killed by a process of this user, or crashed`);
    });
    child.stdin!.on("error", () => undefined);
    // Neither the guard nor its pipe keeps the sidecar alive.
    child.unref();
    (child.stdin as Socket).unref();
    this.child = child;
    this.childStarted = Date.now();
    child.stdin!.write(`prefix ${sidecarCookiePrefix()}\n`);
    for (const [g, s] of this.groups) child.stdin!.write(`+ ${g} ${s}\n`);
    for (const p of this.paths) child.stdin!.write(`f ${p}\n`);
    return child;
  }

  /** Replaces the guard: at once the first time, then 50 ms, 100 ms, … up to GUARD_MAX_BACKOFF_MS. */
  private scheduleRestart(why?: string): void {
    if (this.restartTimer) return;
    const delay = this.quickDeaths === 0 ? 0 : Math.min(FIRST_BACKOFF_MS * 2 ** (this.quickDeaths - 1), GUARD_MAX_BACKOFF_MS);
    this.quickDeaths++;
    if (why) this.warn(`${why}; starting another in ${delay} ms (replacement ${this.quickDeaths} in a row); until it runs, opens and new agent processes are refused`);
    this.restartAt = Date.now() + delay;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.child && this.start()) this.warn(`a new guard process ${this.child!.pid} watches ${this.groups.size} process group(s) and ${this.paths.size} temporary path(s)`, false);
    }, delay);
    this.restartTimer.unref();
  }

  private warn(what: string, risk = true): void {
    process.stderr.write(
      `a4aa warn: ${what}.${risk ? " Agents and their temporary files may outlive the sidecar if it is killed (SIGKILL, OOM) before a guard runs again; a normal shutdown still ends them." : ""}\n`,
    );
  }
}

/** The one guard of this sidecar. */
export const sidecarGuard = new SidecarGuard();
process.on("exit", () => sidecarGuard.removePathsNow());
