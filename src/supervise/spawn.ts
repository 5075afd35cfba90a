// The one way lanes start a process: resolve the program on the child's PATH, then start
// it on pipes or under a PTY, in its own process group, with its own cookie — only while a
// guard runs (fail closed, guard.ts) and within the agent-process bound (capacity.ts). A
// sandboxed session hands a wrapper (src/sandbox) that turns the command into the one that
// runs it isolated; supervision is the same either way.
import { PipeProcess } from "./pipe-process.js";
import { PtyProcess } from "./pty-process.js";
import { resolveProgram } from "./resolve-program.js";
import { newCookie } from "./cookie.js";
import { tapStarted } from "./taps.js";
import { sidecarGuard } from "./guard.js";
import { withRoom } from "./capacity.js";
import { startSlot } from "./pacing.js";

export interface ProcessCommand {
  program: string;
  args: string[];
  cwd: string;
  /** The child's environment (from buildChildEnv); A4AA_AGENT_COOKIE is added to it. */
  env: Record<string, string>;
  /** For logs and errors. */
  name: string;
  /** False: not counted against --max-agent-processes (a4aa's own short probes). */
  bounded?: boolean;
  /** R-SANDBOX-1: runs the command inside the session's sandbox. */
  wrapper?: SpawnWrapper;
}

/** A command as it would start, program resolved. */
export interface StartCommand {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * Turns a command into the one that runs it isolated (src/sandbox: bubblewrap). The process
 * it starts is a monitor whose descendants run the command: see SupervisedProcess's
 * `sandboxed` for what supervision does differently.
 */
export interface SpawnWrapper {
  wrap(c: StartCommand): { file: string; args: string[]; env: Record<string, string> };
}

/** The program to start and how: the command itself, or its wrapped form. */
function toStart(cmd: ProcessCommand): StartCommand & { argv0?: string; sandboxed: boolean } {
  const file = resolveProgram(cmd.program, cmd.env, cmd.cwd);
  if (!cmd.wrapper) return { file, args: cmd.args, cwd: cmd.cwd, env: cmd.env, argv0: cmd.program, sandboxed: false };
  return { ...cmd.wrapper.wrap({ file, args: cmd.args, cwd: cmd.cwd, env: cmd.env }), cwd: cmd.cwd, sandboxed: true };
}

/**
 * Refuses while no guard runs; reserves room under the bound unless `bounded` is false; then
 * waits for its turn to start (pacing.ts).
 */
function guarded<T>(cmd: ProcessCommand, start: () => Promise<T>): Promise<T> {
  const refused = sidecarGuard.armed();
  if (refused) return Promise.reject(refused);
  const paced = () => startSlot().then(start);
  return cmd.bounded === false ? paced() : withRoom(paced);
}

export function startPipe(cmd: ProcessCommand): Promise<PipeProcess> {
  const run = toStart(cmd);
  return guarded(cmd, () => PipeProcess.start({ ...run, name: cmd.name, cookie: newCookie() })).then((p) => tapStarted(p, cmd));
}

export function startPty(cmd: ProcessCommand & { cols: number; rows: number }): Promise<PtyProcess> {
  const run = toStart(cmd);
  return guarded(cmd, () => PtyProcess.start({ ...run, name: cmd.name, cols: cmd.cols, rows: cmd.rows, cookie: newCookie() })).then((p) => tapStarted(p, cmd));
}

export { PipeProcess, PtyProcess };
export type { StopOptions, StopResult, ExitInfo } from "./supervised-process.js";
export { SupervisedProcess, liveProcessCount } from "./supervised-process.js";
export { AGENT_COOKIE_VAR } from "./cookie.js";
