// Finds the program to run the way execvp would, with the *child's* PATH, so that a
// missing program is a clear spawn_failed before anything starts.
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { errors } from "../errors.js";

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function resolveProgram(program: string, env: Record<string, string>, cwd: string): string {
  if (program.includes("/")) {
    const p = path.resolve(cwd, program);
    if (isExecutableFile(p)) return p;
    throw errors.spawnFailed(`cannot run ${JSON.stringify(program)}: ${p} is not an executable file`);
  }
  const PATH = env.PATH;
  if (!PATH) {
    throw errors.spawnFailed(
      `cannot run ${JSON.stringify(program)}: the agent's environment has no PATH to find it on; inherit PATH in the env policy or give an absolute path`,
    );
  }
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue;
    const p = path.resolve(cwd, dir, program);
    if (isExecutableFile(p)) return p;
  }
  throw errors.spawnFailed(`cannot run ${JSON.stringify(program)}: not found on the agent's PATH (${pathForPeople(PATH)})`);
}

/** A PATH for an error message: its first folders and how many more (a long PATH buries the point). */
export function pathForPeople(PATH: string | undefined, shown = 4): string {
  if (!PATH) return "unset";
  const dirs = PATH.split(path.delimiter).filter(Boolean);
  return dirs.length <= shown ? dirs.join(path.delimiter) : `${dirs.slice(0, shown).join(path.delimiter)}${path.delimiter}… ${dirs.length - shown} more folders`;
}
