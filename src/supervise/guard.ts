// The sidecar's side of the guard (guard-main.ts): started with the first supervised
// process, told about each process group as it starts and once it is gone. The guard
// lives in its own session, so a signal to the host's or the sidecar's process group
// does not reach it; it only acts on the EOF of its stdin, i.e. when the sidecar is gone.
import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { sidecarCookiePrefix } from "./cookie.js";

const SCRIPT = fileURLToPath(new URL("./guard-main.js", import.meta.url));
/** After SIGTERM, how long the guard waits before SIGKILL: TERM + KILL fit in R-SUP-4's 5 s. */
export const GUARD_TERM_GRACE_MS = 2000;
const MAX_RESTARTS = 5;

export class SidecarGuard {
  private child: ChildProcess | null = null;
  private readonly groups = new Map<number, number>();
  private restarts = 0;

  /** The guard's pid, once it runs (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  watch(pgid: number, leaderStart: number): void {
    this.groups.set(pgid, leaderStart);
    this.send(`+ ${pgid} ${leaderStart}\n`);
  }

  release(pgid: number): void {
    if (!this.groups.delete(pgid)) return;
    this.send(`- ${pgid}\n`);
  }

  private send(line: string): void {
    const c = this.child ?? this.start();
    if (c?.stdin?.writable) c.stdin.write(line);
  }

  private start(): ChildProcess | null {
    if (this.restarts > MAX_RESTARTS) return null;
    this.restarts++;
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
      return null;
    }
    child.once("error", (e) => this.warn(`the guard process failed (${e.message})`));
    child.once("exit", (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      this.warn(`the guard process ended (${signal ?? `code ${code}`}); starting another`);
      if (this.groups.size) this.start();
    });
    child.stdin!.on("error", () => undefined);
    // Neither the guard nor its pipe keeps the sidecar alive.
    child.unref();
    (child.stdin as Socket).unref();
    this.child = child;
    child.stdin!.write(`prefix ${sidecarCookiePrefix()}\n`);
    for (const [g, s] of this.groups) child.stdin!.write(`+ ${g} ${s}\n`);
    return child;
  }

  private warn(what: string): void {
    process.stderr.write(
      `a4aa warn: ${what}. Agents may outlive the sidecar if it is killed (SIGKILL, OOM); a normal shutdown still ends them.\n`,
    );
  }
}

/** The one guard of this sidecar. */
export const sidecarGuard = new SidecarGuard();
