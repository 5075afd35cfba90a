// A supervised child under a pseudo-terminal (node-pty), for programs that only work
// interactively. The PTY merges stdout and stderr; its output is the "stderr tail" too.
import { constants } from "node:os";
import type { IPty } from "node-pty";
import { errors } from "../errors.js";
import { AGENT_COOKIE_VAR } from "./cookie.js";
import { SupervisedProcess } from "./supervised-process.js";

export interface PtySpawnSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  name: string;
  cols: number;
  rows: number;
  /** A4AA_AGENT_COOKIE's value, added to `env` (see cookie.ts). */
  cookie: string;
  /** The program is a sandbox's monitor (see SupervisedProcess). */
  sandboxed?: boolean;
}

type NodePty = typeof import("node-pty");
let ptyModule: Promise<NodePty> | undefined;

/**
 * node-pty is a native module: it is loaded only when a PTY is asked for, and a build that
 * is missing (its install script was skipped, e.g. by npm 12's allowScripts) fails that
 * session's open with `spawn_failed` saying how to fix it, not the whole sidecar.
 */
export function loadNodePty(load: () => Promise<unknown> = () => import("node-pty")): Promise<NodePty> {
  return load().then(
    (m) => ((m as { default?: NodePty }).default ?? m) as NodePty,
    (e: unknown) => {
      throw errors.spawnFailed(
        `the PTY transport needs node-pty's native module, which could not be loaded (${(e as Error)?.message ?? String(e)}). ` +
          "Reinstall a4aa with node-pty's install script allowed (npm: `npm install-scripts approve node-pty`, then `npm rebuild node-pty`), " +
          'or use transport "pipe".',
      );
    },
  );
}

/** Loads node-pty once; a session on the PTY transport calls it at open to fail early. */
export function ensureNodePty(): Promise<NodePty> {
  return (ptyModule ??= loadNodePty());
}

export class PtyProcess extends SupervisedProcess {
  private readonly dataListeners = new Set<(data: string) => void>();

  private constructor(
    private readonly pty: IPty,
    name: string,
    cookie: string,
    sandboxed: boolean,
  ) {
    super(pty.pid, name, cookie, sandboxed);
    pty.onData((d) => {
      this.handleStderr(d);
      for (const l of this.dataListeners) l(d);
    });
    pty.onExit(({ exitCode, signal }) => {
      void this.leaderExited();
      const sig = signal ? (signalName(signal) ?? null) : null;
      this.handleExit({ code: sig ? null : exitCode, signal: sig });
    });
  }

  static async start(spec: PtySpawnSpec): Promise<PtyProcess> {
    const ptyLib = await ensureNodePty();
    try {
      const pty = ptyLib.spawn(spec.file, spec.args, {
        name: spec.env.TERM ?? "xterm-256color",
        cols: spec.cols,
        rows: spec.rows,
        cwd: spec.cwd,
        env: { ...spec.env, [AGENT_COOKIE_VAR]: spec.cookie },
      });
      return new PtyProcess(pty, spec.name, spec.cookie, spec.sandboxed === true);
    } catch (e) {
      throw errors.spawnFailed(`cannot run ${spec.file} under a PTY: ${(e as Error).message}`);
    }
  }

  /** Decoded terminal output as it arrives. */
  onData(cb: (data: string) => void): () => void {
    this.dataListeners.add(cb);
    return () => this.dataListeners.delete(cb);
  }

  write(data: string): void {
    if (this.running) this.pty.write(data);
  }

  pause(): void {
    this.pty.pause();
  }

  resume(): void {
    this.pty.resume();
  }

  protected closeInput(): void {
    // EOF at the start of a line (Ctrl-D) is what a terminal's "close stdin" means.
    this.write("\x04");
  }
}

function signalName(n: number): NodeJS.Signals | undefined {
  return (Object.entries(constants.signals) as [NodeJS.Signals, number][]).find(([, v]) => v === n)?.[0];
}
