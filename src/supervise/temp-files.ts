// Temporary files and folders a4aa writes for agents (MCP configuration with secrets,
// prompt images, Gemini's settings folder). Each is named after its owner — the sidecar's
// pid and start time — and registered with the guard, which removes it however the sidecar
// dies; the sidecar's own exit hook removes it too. A sidecar starting up sweeps leftovers
// whose owner is gone (a guard killed along with its sidecar, a power cut).
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { sidecarGuard } from "./guard.js";
import { readProc, trySignal } from "./process-tree.js";

const OWNER = `o${process.pid}x${readProc(process.pid)?.start ?? 0}`;
// a4aa-<kind>-o<pid>x<start>-<mkdtemp's 6 characters>
const NAME = /^a4aa-[A-Za-z0-9_.-]+?-o(\d+)x(\d+)-[A-Za-z0-9]{6}$/;

/** The folders a4aa makes its temporary folders in. */
export function tempBases(): string[] {
  return [tmpdir(), path.join(homedir(), ".cache", "a4aa")];
}

/** The prefix for `mkdtemp` of a folder of `kind`: `<base>/a4aa-<kind>-<owner>-`. */
export function tempPrefix(base: string, kind: string): string {
  return path.join(base, `a4aa-${kind}-${OWNER}-`);
}

/** The temporary folder of this sidecar that `p` is in or is (named by `tempPrefix`), if any. */
export function ownTempFolder(p: string): string | null {
  for (let d = path.resolve(p); path.dirname(d) !== d; d = path.dirname(d)) {
    const m = NAME.exec(path.basename(d));
    if (m && `o${m[1]}x${m[2]}` === OWNER) return d;
  }
  return null;
}

/** From now until `releaseTemp`, the guard removes `p` if the sidecar dies. */
export function registerTemp(p: string): void {
  sidecarGuard.watchPath(p);
}

/** `p` was removed (or is about to be) by its owner. */
export function releaseTemp(p: string): void {
  sidecarGuard.releasePath(p);
}

/** Whether the sidecar of `pid` and `start` still runs. */
function ownerAlive(pid: number, start: number): boolean {
  if (pid === process.pid) return true;
  const p = readProc(pid);
  if (!p) return process.platform !== "linux" && pidExists(pid);
  return start === 0 || p.start === start;
}

function pidExists(pid: number): boolean {
  const failed = trySignal(pid, 0);
  return failed === null || failed === "EPERM";
}

/**
 * Removes this user's a4aa temporary folders whose owner is gone; returns their paths.
 * Never follows a symlink, never touches another user's folder or a name it did not make.
 */
export function sweepLeftovers(bases = tempBases()): string[] {
  const removed: string[] = [];
  const uid = process.getuid?.();
  for (const base of bases) {
    let names: string[];
    try {
      names = readdirSync(base);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = NAME.exec(name);
      if (!m || ownerAlive(Number(m[1]), Number(m[2]))) continue;
      const p = path.join(base, name);
      try {
        const st = lstatSync(p);
        if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
        rmSync(p, { recursive: true, force: true });
        removed.push(p);
      } catch {
        // gone meanwhile, or not ours to remove
      }
    }
  }
  return removed;
}
