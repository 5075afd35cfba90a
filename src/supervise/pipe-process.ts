// A supervised child on pipes: stdin, stdout and stderr.
import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { errors } from "../errors.js";
import { AGENT_COOKIE_VAR } from "./cookie.js";
import { SupervisedProcess } from "./supervised-process.js";

const STDERR_DRAIN_MS = 100;

export interface PipeSpawnSpec {
  /** Already resolved (see resolveProgram). */
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** For logs and errors, e.g. `claude-code`. */
  name: string;
  /** argv[0] as the child sees it (default: `file`). */
  argv0?: string;
  /** A4AA_AGENT_COOKIE's value, added to `env` (see cookie.ts). */
  cookie: string;
  /** The program is a sandbox's monitor (see SupervisedProcess). */
  sandboxed?: boolean;
}

export class PipeProcess extends SupervisedProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;

  private constructor(pid: number, name: string, cookie: string, sandboxed: boolean, stdin: Writable, stdout: Readable) {
    super(pid, name, cookie, sandboxed);
    this.stdin = stdin;
    this.stdout = stdout;
  }

  /** Starts the child in a new process group; resolves once it runs, rejects with spawn_failed. */
  static start(spec: PipeSpawnSpec): Promise<PipeProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(spec.file, spec.args, {
        cwd: spec.cwd,
        env: { ...spec.env, [AGENT_COOKIE_VAR]: spec.cookie },
        argv0: spec.argv0,
        detached: true, // setsid(): the child leads a new process group
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      child.once("error", (err: NodeJS.ErrnoException) => {
        if (proc) return;
        reject(errors.spawnFailed(`cannot run ${spec.file}: ${err.code ?? ""} ${err.message}`.trim()));
      });
      let proc: PipeProcess | undefined;
      child.once("spawn", () => {
        proc = new PipeProcess(child.pid!, spec.name, spec.cookie, spec.sandboxed === true, child.stdin!, child.stdout!);
        const p = proc;
        // EPIPE when the agent is gone is reported by its exit, not as a crash of ours.
        child.stdin!.on("error", () => {});
        child.stdout!.on("error", () => {});
        child.stderr!.on("data", (c: Buffer) => p.handleStderr(c));
        child.once("exit", (code, signal) => {
          const report = () => p.handleExit({ code, signal });
          const swept = p.leaderExited();
          // stderr may still hold bytes: let it drain before reporting the exit.
          if (child.stderr!.readableEnded) report();
          else {
            child.stderr!.once("end", report);
            child.stderr!.once("close", report);
            // Something outside the tree (it dropped the cookie) may hold stderr open for ever.
            void swept.then(() => setTimeout(report, STDERR_DRAIN_MS).unref());
          }
        });
        resolve(p);
      });
    });
  }

  protected closeInput(): void {
    if (!this.stdin.destroyed) this.stdin.end();
  }
}
