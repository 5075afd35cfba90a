// The one way lanes start a process: resolve the program on the child's PATH, then start
// it on pipes or under a PTY, in its own process group, with its own cookie.
import { PipeProcess } from "./pipe-process.js";
import { PtyProcess } from "./pty-process.js";
import { resolveProgram } from "./resolve-program.js";
import { newCookie } from "./cookie.js";
import { tapStarted } from "./taps.js";

export interface ProcessCommand {
  program: string;
  args: string[];
  cwd: string;
  /** The child's environment (from buildChildEnv); A4AA_AGENT_COOKIE is added to it. */
  env: Record<string, string>;
  /** For logs and errors. */
  name: string;
}

export function startPipe(cmd: ProcessCommand): Promise<PipeProcess> {
  const file = resolveProgram(cmd.program, cmd.env, cmd.cwd);
  return PipeProcess.start({ file, args: cmd.args, cwd: cmd.cwd, env: cmd.env, name: cmd.name, argv0: cmd.program, cookie: newCookie() }).then((p) => tapStarted(p, cmd));
}

export function startPty(cmd: ProcessCommand & { cols: number; rows: number }): Promise<PtyProcess> {
  const file = resolveProgram(cmd.program, cmd.env, cmd.cwd);
  return PtyProcess.start({ file, args: cmd.args, cwd: cmd.cwd, env: cmd.env, name: cmd.name, cols: cmd.cols, rows: cmd.rows, cookie: newCookie() }).then((p) =>
    tapStarted(p, cmd),
  );
}

export { PipeProcess, PtyProcess };
export type { StopOptions, StopResult, ExitInfo } from "./supervised-process.js";
export { SupervisedProcess, liveProcessCount } from "./supervised-process.js";
export { AGENT_COOKIE_VAR } from "./cookie.js";
