// The fleet test's network (Linux, root, iproute2): one network namespace per member (the
// host, each sidecar) with its own address, all joined by veth pairs to a bridge that lives in
// a namespace of its own. Nothing is added to the machine's own namespace: its interfaces,
// routes and cgroups are never touched, and traffic stays on the test's addresses.
// Every namespace is named `a4f<pid>-…` after the process that made it, so a later run removes
// what a killed one left (its pid is gone).
import { spawnSync } from "node:child_process";

export interface Member {
  /** Its namespace, e.g. `a4f1234-s1`. */
  ns: string;
  /** Its address on the test bridge. */
  addr: string;
  /** Its port on the bridge (in the bridge's namespace): set down to cut its link. */
  port: string;
}

export interface Topology {
  prefix: string;
  /** The namespace that holds the bridge `br0`. */
  bridgeNs: string;
  members: Record<string, Member>;
}

const SUBNET = "10.231.0";
const OURS = /^a4f(\d+)-/;

/** Runs `ip ARGS`; throws with its stderr when it fails. */
export function ip(args: string[]): string {
  const r = spawnSync("ip", args, { encoding: "utf8" });
  if (r.error) throw new Error(`ip ${args.join(" ")}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${(r.stderr || r.stdout).trim() || `exit ${r.status}`}`);
  return r.stdout;
}

/** The network namespaces that exist (`ip netns list`). */
export function namespaces(): string[] {
  return ip(["netns", "list"])
    .split("\n")
    .map((l) => l.split(" ")[0])
    .filter(Boolean);
}

/** Why namespaces cannot be made here, or undefined when they can (one is made and removed). */
export function cannotMakeNamespaces(): string | undefined {
  if (process.platform !== "linux") return `network namespaces are Linux only (this is ${process.platform})`;
  const probe = `a4f${process.pid}-probe`;
  try {
    ip(["netns", "add", probe]);
  } catch (e) {
    return (e as Error).message;
  }
  try {
    ip(["netns", "del", probe]);
  } catch {
    // removed below by removeNamespaces, or by the next run's sweep
  }
  return undefined;
}

/**
 * Makes the bridge namespace and one namespace per name, each with `eth0` at 10.231.0.(11+i)/24
 * wired to the bridge. On any failure what was made is removed and the error thrown.
 */
export function createTopology(names: string[]): Topology {
  const prefix = `a4f${process.pid}`;
  const t: Topology = { prefix, bridgeNs: `${prefix}-br`, members: {} };
  const made: string[] = [];
  try {
    ip(["netns", "add", t.bridgeNs]);
    made.push(t.bridgeNs);
    ip(["-n", t.bridgeNs, "link", "add", "br0", "type", "bridge"]);
    ip(["-n", t.bridgeNs, "link", "set", "br0", "up"]);
    names.forEach((name, i) => {
      const m: Member = { ns: `${prefix}-${name}`, addr: `${SUBNET}.${11 + i}`, port: `p-${name}` };
      ip(["netns", "add", m.ns]);
      made.push(m.ns);
      // Both ends are made inside namespaces: the machine's own never sees the pair.
      ip(["-n", t.bridgeNs, "link", "add", m.port, "type", "veth", "peer", "name", "eth0", "netns", m.ns]);
      ip(["-n", t.bridgeNs, "link", "set", m.port, "master", "br0", "up"]);
      ip(["-n", m.ns, "addr", "add", `${m.addr}/24`, "dev", "eth0"]);
      ip(["-n", m.ns, "link", "set", "eth0", "up"]);
      ip(["-n", m.ns, "link", "set", "lo", "up"]);
      t.members[name] = m;
    });
    return t;
  } catch (e) {
    removeNamespaces(made);
    throw e;
  }
}

/** Cuts (`up` false) or restores a member's link, at its bridge port. */
export function setLink(t: Topology, name: string, up: boolean): void {
  ip(["-n", t.bridgeNs, "link", "set", t.members[name].port, up ? "up" : "down"]);
}

/**
 * Ends every process still inside the namespaces, then removes them (a namespace's veth ends
 * go with it). Returns what could not be removed, as messages.
 */
export function removeNamespaces(names: string[]): string[] {
  const problems: string[] = [];
  for (const ns of names) {
    try {
      for (const pid of ip(["netns", "pids", ns]).split("\n").filter(Boolean)) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // gone already
        }
      }
    } catch {
      // no such namespace any more
    }
  }
  for (const ns of names) {
    try {
      ip(["netns", "del", ns]);
    } catch (e) {
      if (namespaces().includes(ns)) problems.push((e as Error).message);
    }
  }
  return problems;
}

export function removeTopology(t: Topology): string[] {
  return removeNamespaces([...Object.values(t.members).map((m) => m.ns), t.bridgeNs]);
}

/** Namespaces of earlier runs whose process is gone (killed before it could clean up). */
export function staleNamespaces(): string[] {
  return namespaces().filter((ns) => {
    const m = OURS.exec(ns);
    if (!m || Number(m[1]) === process.pid) return false;
    try {
      process.kill(Number(m[1]), 0);
      return false;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === "ESRCH";
    }
  });
}

/** The namespaces this process made that still exist. */
export function ownNamespaces(): string[] {
  return namespaces().filter((ns) => ns.startsWith(`a4f${process.pid}-`));
}
