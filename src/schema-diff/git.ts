// The few git questions the diff and the gate ask.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

export function git(args: string[], cwd: string): { ok: boolean; out: string; err: string } {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw new Error(`git ${args.join(" ")}: ${r.error.message}`);
  return { ok: r.status === 0, out: r.stdout, err: r.stderr.trim() };
}

export function repoRoot(cwd = process.cwd()): string {
  const r = git(["rev-parse", "--show-toplevel"], cwd);
  if (!r.ok) throw new Error(`not inside a git repository (${r.err})`);
  return r.out.trim();
}

/** The commit a ref names, or undefined when it names none. */
export function commitOf(ref: string, root: string): string | undefined {
  const r = git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], root);
  return r.ok ? r.out.trim() : undefined;
}

/** A file as of a commit, or null when it did not exist there. */
export function showFile(commit: string, file: string, root: string): string | null {
  const r = git(["show", `${commit}:${file}`], root);
  if (r.ok) return r.out;
  if (/does not exist|exists on disk, but not in/.test(r.err)) return null;
  throw new Error(`git show ${commit}:${file}: ${r.err}`);
}

export function readWorkingFile(file: string, root: string): string | null {
  const p = path.join(root, file);
  return existsSync(p) ? readFileSync(p, "utf8") : null;
}

export interface Base {
  /** Undefined when HEAD is the first commit: there is nothing before it. */
  commit?: string;
  describe: string;
}

function versionOf(text: string | null): string | undefined {
  try {
    const v = text === null ? undefined : (JSON.parse(text) as { info?: { version?: unknown } }).info?.version;
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * On main: the newest commit (following first parents) whose `file` has another
 * `info.version` than the working tree's. Every change made while a version is not yet
 * released is judged together against the version before it, so that a second change in
 * 1.2.0 is not taken for one that needs 1.3.0.
 */
function previousVersionBase(root: string, file: string): Base | undefined {
  const current = versionOf(readWorkingFile(file, root));
  if (!current) return undefined;
  const log = git(["log", "--first-parent", "--format=%H", "HEAD", "--", file], root);
  if (!log.ok) return undefined;
  for (const commit of log.out.split("\n").filter(Boolean)) {
    const v = versionOf(showFile(commit, file, root));
    if (v !== undefined && v !== current) return { commit, describe: `the last commit at ${v}, the version before ${current}` };
  }
  return undefined;
}

/**
 * The base the gate compares with: on a branch, its merge-base with main (HEAD itself on a
 * branch with no commits of its own); on main (or a detached HEAD at main's tip, as in CI on
 * a fresh clone), the last commit of the version before the working tree's (`file` given),
 * else HEAD's parent.
 */
export function defaultBase(root: string, file?: string): Base {
  const head = commitOf("HEAD", root);
  if (!head) throw new Error("the repository has no commits");
  const branch = git(["rev-parse", "--abbrev-ref", "HEAD"], root).out.trim();
  const main = ["main", "origin/main"].find((r) => commitOf(r, root));
  // A detached HEAD at main's tip is CI building main: judge the last commit, like on main.
  const onMain = branch === "main" || (branch === "HEAD" && main !== undefined && commitOf(main, root) === head);
  if (!onMain && main) {
    const mb = git(["merge-base", "HEAD", main], root);
    if (mb.ok) return { commit: mb.out.trim(), describe: `merge-base of HEAD and ${main}` };
  }
  const previous = file ? previousVersionBase(root, file) : undefined;
  if (previous) return previous;
  const parent = commitOf("HEAD~1", root);
  if (parent) return { commit: parent, describe: "HEAD~1 (the parent of HEAD)" };
  if (git(["rev-parse", "--is-shallow-repository"], root).out.trim() === "true") {
    throw new Error("HEAD's parent is not in this shallow clone: fetch more history (git fetch --deepen=1) or pass --base");
  }
  return { describe: "none (HEAD is the first commit)" };
}

/** Commits that changed a file, oldest first. */
export function commitsTouching(file: string, root: string): { commit: string; subject: string }[] {
  const r = git(["log", "--reverse", "--format=%H %s", "--", file], root);
  if (!r.ok) throw new Error(`git log: ${r.err}`);
  return r.out
    .split("\n")
    .filter(Boolean)
    .map((l) => ({ commit: l.slice(0, 40), subject: l.slice(41) }));
}

export const short = (c: string) => c.slice(0, 7);
