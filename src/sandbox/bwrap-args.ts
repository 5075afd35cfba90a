// The bubblewrap command line of one sandboxed process (R-SANDBOX-1): a pure function of
// the plan, so what a sandbox shows is read in one place and unit-tested.
//
// Always: new user, process, IPC, UTS and cgroup namespaces (--unshare-all), no capability
// even for root (--cap-drop ALL), a /proc of its own (no other process is visible, the
// sidecar included), and the whole sandbox killed when its monitor or the sidecar dies
// (--die-with-parent). The network namespace is new (loopback only) unless network is `host`.
import { lstatSync, readlinkSync } from "node:fs";
import path from "node:path";
import { SYSTEM_DIRS, inside } from "./roots.js";

export type SandboxFilesystem = "cwd" | "host";
export type SandboxNetwork = "model" | "none" | "host";

/** Where the sandbox's own files appear inside (`filesystem: "cwd"`). */
export const INSIDE_DIR = "/run/a4aa";

export interface BwrapPlan {
  filesystem: SandboxFilesystem;
  network: SandboxNetwork;
  /** The session's cwd: writable. */
  cwd: string;
  /** Where the command starts (the cwd, or a folder inside it). */
  chdir?: string;
  /** `filesystem: "cwd"`: HOME as the agent sees it, and the host folder shown there (writable). */
  home?: { at: string; from: string };
  /** `filesystem: "cwd"`: the host folder shown as /tmp and /var/tmp (writable). */
  tmp?: string;
  /** `filesystem: "cwd"`: host folders shown read-only at their own path (commandRoots). */
  readOnly?: string[];
  /** Host files shown at a path inside (the model forwarder, and its socket's folder writable). */
  extra?: { from: string; at: string; writable?: boolean }[];
}

function linkTarget(p: string): string | null {
  try {
    return lstatSync(p).isSymbolicLink() ? readlinkSync(p) : null;
  } catch {
    return null;
  }
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The system folders as they are: links as links (merged /usr), folders read-only. */
function systemMounts(): string[] {
  const out: string[] = [];
  for (const d of SYSTEM_DIRS) {
    if (!exists(d)) continue;
    const target = linkTarget(d);
    out.push(...(target ? ["--symlink", target, d] : ["--ro-bind", d, d]));
  }
  return out;
}

/** bubblewrap's arguments before `--` and the command. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = ["--unshare-all", ...(plan.network === "host" ? ["--share-net"] : []), "--cap-drop", "ALL", "--die-with-parent"];
  if (plan.filesystem === "host") {
    args.push("--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc");
  } else {
    args.push(...systemMounts(), "--proc", "/proc", "--dev", "/dev");
    // The resolver's configuration may live under /run (systemd-resolved): only with the host's network.
    if (plan.network === "host") args.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
    if (plan.tmp) args.push("--bind", plan.tmp, "/tmp", "--bind", plan.tmp, "/var/tmp");
    const ro = plan.readOnly ?? [];
    const home = plan.home;
    // A folder that holds HOME goes under the private home; one inside HOME goes over it.
    const holdsHome = (d: string) => !!home && inside(home.at, d) && d !== home.at;
    for (const d of ro) if (holdsHome(d)) args.push("--ro-bind", d, d);
    if (home) args.push("--bind", home.from, home.at);
    for (const d of ro) if (!holdsHome(d)) args.push("--ro-bind", d, d);
  }
  args.push("--bind", plan.cwd, plan.cwd);
  for (const e of plan.extra ?? []) if (e.from !== e.at) args.push(e.writable ? "--bind" : "--ro-bind", e.from, e.at);
  // The sandbox's own root (a tmpfs holding the mount points) is not writable either.
  if (plan.filesystem === "cwd") args.push("--remount-ro", "/");
  args.push("--chdir", plan.chdir ?? plan.cwd);
  return args;
}

/** Where an `extra` file appears inside: under INSIDE_DIR with `filesystem: "cwd"`, else where it is. */
export function insidePath(plan: Pick<BwrapPlan, "filesystem">, from: string, name: string): string {
  return plan.filesystem === "cwd" ? path.posix.join(INSIDE_DIR, name) : from;
}
