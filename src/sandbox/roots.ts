// What a `filesystem: "cwd"` sandbox shows of the host besides the session's own folders:
// the system folders, read-only, and the folders the command the host asked for runs from —
// the package of its program (and of a script it names), and a4aa's own temporary folders
// it is handed (MCP configuration, prompt images). Nothing an agent asks for later (a
// terminal's command) adds to it.
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { ownTempFolder } from "../supervise/temp-files.js";

/** Top-level folders shown read-only as they are: programs, libraries, configuration. */
export const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/snap", "/sys"];

export function inside(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith("/") ? dir : dir + "/");
}

/** Inside one of the system folders (shown anyway). */
export const inSystem = (p: string): boolean => SYSTEM_DIRS.some((d) => inside(p, d));

function real(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folder `p` runs from: above the topmost `node_modules` (its dependencies sit beside it),
 * else the nearest folder with a package.json, else its own folder.
 */
export function installRoot(p: string): string {
  const parts = p.split("/");
  const nm = parts.indexOf("node_modules");
  if (nm > 1) return parts.slice(0, nm).join("/");
  const start = isDir(p) ? p : path.dirname(p);
  for (let d = start; path.dirname(d) !== d; d = path.dirname(d)) {
    if (existsSync(path.join(d, "package.json"))) return d;
  }
  return start;
}

/** At least two levels deep (`/srv/app`, never `/` or `/srv`). */
const deepEnough = (p: string) => p.split("/").filter(Boolean).length >= 2;

/**
 * The folders to show read-only for a command the host asked for: `program` (resolved),
 * its arguments that are existing absolute paths, and environment values inside a4aa's own
 * temporary folders. Each path counts as given and as its real path; a root's `node_modules`
 * that is a link brings its target. Outermost folders only, system folders left out.
 */
export function commandRoots(program: string, args: readonly string[], env: Readonly<Record<string, string>>): string[] {
  const found = new Set<string>();
  const add = (root: string | null) => {
    if (!root || !path.isAbsolute(root) || inSystem(root) || !deepEnough(root)) return;
    found.add(root);
    const nm = path.join(root, "node_modules");
    try {
      if (lstatSync(nm).isSymbolicLink()) add(installRoot(path.resolve(root, readlinkSync(nm))));
    } catch {
      // no node_modules
    }
  };
  const named = (p: string) => {
    for (const q of [p, real(p)]) {
      if (!q) continue;
      add(ownTempFolder(q) ?? installRoot(q));
    }
  };
  named(program);
  for (const a of args) if (path.isAbsolute(a) && !a.includes("\0") && existsSync(a)) named(a);
  for (const v of Object.values(env)) {
    if (!path.isAbsolute(v) || !existsSync(v)) continue;
    add(ownTempFolder(v));
    const r = real(v);
    if (r) add(ownTempFolder(r));
  }
  return outermost([...found]);
}

/** Drops every folder inside another of the list. */
export function outermost(dirs: string[]): string[] {
  const sorted = [...new Set(dirs)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const d of sorted) if (!out.some((o) => inside(d, o))) out.push(d);
  return out;
}
