// The guard: one small process per sidecar that outlives it (R-SUP-4). Node has no
// PR_SET_PDEATHSIG; instead the guard holds the read end of a pipe only the sidecar writes
// to. The kernel closes it however the sidecar dies (SIGKILL, OOM kill), and its EOF means:
// end every process group the sidecar named and every process carrying one of its cookies —
// SIGTERM, then SIGKILL after the grace — and remove every temporary path it named.
//
// stdin lines: `prefix <cookie prefix>`, `+ <pgid> <leader start time>`, `- <pgid>`,
// `f <path>`, `-f <path>` (the rest of the line is the path).
import { readdirSync, rmSync } from "node:fs";
import { readProc, type ProcInfo } from "./process-tree.js";
import { processesWithCookie } from "./cookie.js";

const TERM_GRACE_MS = Number(process.argv[2] ?? 2000);
const KILL_GRACE_MS = 1500;
const POLL_MS = 50;

const groups = new Map<number, number>();
const paths = new Set<string>();
let prefix = "";
let buf = "";

// The sidecar's terminal, its process group or the host may signal the guard too: only EOF counts.
for (const sig of ["SIGINT", "SIGHUP", "SIGTERM", "SIGPIPE"] as const) process.on(sig, () => undefined);

process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  buf += chunk;
  let nl: number;
  while ((nl = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, nl);
    const [op, a, b] = line.split(" ");
    buf = buf.slice(nl + 1);
    if (op === "f") paths.add(line.slice(2));
    else if (op === "-f") paths.delete(line.slice(3));
    else if (op === "prefix") prefix = a;
    else if (op === "+") groups.set(Number(a), Number(b));
    else if (op === "-") groups.delete(Number(a));
  }
});
const finish = () => void endAll().finally(() => {
  removePaths();
  process.exit(0);
});
process.stdin.on("end", finish);
process.stdin.on("error", finish);

function removePaths(): void {
  let left = 0;
  for (const p of paths) {
    try {
      rmSync(p, { recursive: true, force: true });
    } catch {
      left++;
    }
  }
  if (paths.size) process.stderr.write(`a4aa guard: removed ${paths.size - left} temporary path(s) written for agents${left ? `; ${left} could not be removed` : ""}\n`);
}

/** Everything still alive that the sidecar owned: one pass over /proc, whatever the number of groups. */
function targets(): Map<number, ProcInfo> {
  const out = new Map<number, ProcInfo>();
  // A leader with another start time is a new process that got the pid: not ours.
  const ours = new Set<number>();
  for (const [pgid, start] of groups) {
    const leader = readProc(pgid);
    if (!(leader && start && leader.start !== start)) ours.add(pgid);
  }
  if (ours.size) {
    for (const name of readdirSync("/proc")) {
      const c = name.charCodeAt(0);
      if (c < 48 || c > 57) continue;
      const info = readProc(Number(name));
      if (info && ours.has(info.pgid) && info.state !== "Z" && info.state !== "X") out.set(info.pid, info);
    }
  }
  if (prefix) for (const p of processesWithCookie(prefix, true)) out.set(p.pid, p);
  return out;
}

function signal(list: Map<number, ProcInfo>, sig: NodeJS.Signals): void {
  for (const p of list.values()) {
    for (const target of p.pgid === p.pid ? [-p.pid, p.pid] : [p.pid]) {
      try {
        process.kill(target, sig);
      } catch {
        // gone meanwhile
      }
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function endAll(): Promise<void> {
  const seen = new Set<number>();
  let killed = 0;
  let left = targets();
  for (const pid of left.keys()) seen.add(pid);
  if (!left.size) return;
  signal(left, "SIGTERM");
  const termDeadline = Date.now() + TERM_GRACE_MS;
  while ((left = targets()).size && Date.now() < termDeadline) {
    // Started since (a fork racing the signal): they get their SIGTERM too.
    const fresh = new Map([...left].filter(([pid]) => !seen.has(pid)));
    for (const pid of fresh.keys()) seen.add(pid);
    if (fresh.size) signal(fresh, "SIGTERM");
    await sleep(POLL_MS);
  }
  const killDeadline = Date.now() + KILL_GRACE_MS;
  while ((left = targets()).size && Date.now() < killDeadline) {
    for (const pid of left.keys()) seen.add(pid);
    killed += left.size;
    signal(left, "SIGKILL");
    await sleep(POLL_MS);
  }
  const survivors = [...targets().keys()];
  process.stderr.write(
    `a4aa guard: the sidecar went away without stopping its agents; ended ${seen.size} process(es), ${Math.min(killed, seen.size)} by SIGKILL` +
      (survivors.length ? `; still alive: ${survivors.join(", ")}` : "") +
      "\n",
  );
}
