// What isolation this machine can give (R-SANDBOX-1, `capabilities.sandbox`): bubblewrap
// found, and one test sandbox with the namespaces and mounts an agent gets actually ran
// (user namespaces may be off: a kernel setting, a container's seccomp profile, AppArmor).
// Probed once per sidecar, at the first open, in about 10 ms.
import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

export interface SandboxSupport {
  available: boolean;
  /** The bubblewrap program, when found. */
  bwrap?: string;
  /** Why sandboxing is not available. */
  detail?: string;
}

/** `A4AA_BWRAP`: where bubblewrap is, when not `bwrap` on the sidecar's PATH (empty: none). */
export const BWRAP_VAR = "A4AA_BWRAP";
const PROBE_TIMEOUT_MS = 5000;

let probed: Promise<SandboxSupport> | undefined;

/** The machine's answer, probed on the first call. */
export function sandboxSupport(): Promise<SandboxSupport> {
  return (probed ??= probe(process.env));
}

/** An executable regular file at `p`. */
export function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** bubblewrap's path, or why it was not found. */
export function findBwrap(env: Readonly<Record<string, string | undefined>>): { bwrap: string } | { detail: string } {
  const set = env[BWRAP_VAR];
  if (set !== undefined) {
    if (set && executable(set)) return { bwrap: set };
    return { detail: `${BWRAP_VAR}=${JSON.stringify(set)} is not an executable file` };
  }
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (dir && path.isAbsolute(dir) && executable(path.join(dir, "bwrap"))) return { bwrap: path.join(dir, "bwrap") };
  }
  return { detail: `bubblewrap (bwrap) is not on the sidecar's PATH: install it (apt-get install bubblewrap, dnf install bubblewrap) or set ${BWRAP_VAR} to its path` };
}

/** The probe's own sandbox: every namespace, no capability, the host read-only, a fresh /proc. */
export const PROBE_ARGS = ["--unshare-all", "--cap-drop", "ALL", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"];

export async function probe(env: Readonly<Record<string, string | undefined>>): Promise<SandboxSupport> {
  if (process.platform !== "linux") return { available: false, detail: `sandboxing needs Linux namespaces (bubblewrap); this sidecar runs on ${process.platform}` };
  const found = findBwrap(env);
  if ("detail" in found) return { available: false, detail: found.detail };
  return new Promise((resolve) => {
    execFile(found.bwrap, PROBE_ARGS, { timeout: PROBE_TIMEOUT_MS, env: { PATH: "/usr/bin:/bin" } }, (err, _out, stderr) => {
      if (!err) return resolve({ available: true, bwrap: found.bwrap });
      const why = String(stderr).trim().split("\n").pop() || err.message;
      resolve({ available: false, bwrap: found.bwrap, detail: `a test sandbox did not start (${found.bwrap}: ${why}); user namespaces may be disabled on this machine (sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces, a container's seccomp or AppArmor profile)` });
    });
  });
}
