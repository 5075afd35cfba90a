// The agent cookie: one non-secret variable in every supervised process's environment,
// inherited by whatever it starts. A descendant that left the process group (setsid, a
// double fork) still carries it, so a scan of /proc/*/environ finds it the way Jenkins'
// ProcessTreeKiller does — whenever it detached, and even when its parent is long gone.
import { randomBytes } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { readProc, thisTurn, withoutStacks, type ProcInfo } from "./process-tree.js";

export const AGENT_COOKIE_VAR = "A4AA_AGENT_COOKIE";

// `<sidecar>.<n>`: the guard ends everything of a dead sidecar by the prefix alone.
const SIDECAR_PREFIX = `${process.pid.toString(36)}${randomBytes(6).toString("hex")}`;
let counter = 0;

/** The prefix every cookie of this sidecar starts with (ends with "."). */
export function sidecarCookiePrefix(): string {
  return `${SIDECAR_PREFIX}.`;
}

export function newCookie(): string {
  return `${SIDECAR_PREFIX}.${++counter}`;
}

// One scan of /proc serves every stop ladder that asks within this long after it (500 sessions
// closing at once read each environ once, not 500 times) — or within four times what the last
// scan cost, when that is longer: with thousands of processes, scanning takes at most a fifth
// of the time — and for the rest of the loop's turn it was made in.
const SCAN_TTL_MS = 50;
let lastScan: { at: number; byCookie: Map<string, ProcInfo[]> } | null = null;
let scanCostMs = 0;
const scannedThisTurn = thisTurn();

const NEEDLE = Buffer.from(`\0${AGENT_COOKIE_VAR}=`);

/** Every live process of this user that carries a cookie, by cookie value. */
function scan(): Map<string, ProcInfo[]> {
  const now = Date.now();
  if (lastScan && (scannedThisTurn.valid() || now - lastScan.at < Math.max(SCAN_TTL_MS, 4 * scanCostMs))) return lastScan.byCookie;
  const byCookie = new Map<string, ProcInfo[]>();
  // Processes that vanish mid-scan throw: without a stack trace each (they are many, and dropped).
  withoutStacks(() => scanInto(byCookie));
  // From the scan's end: with thousands of processes the scan itself takes longer than the TTL.
  const end = Date.now();
  scanCostMs = end - now;
  lastScan = { at: end, byCookie };
  scannedThisTurn.mark();
  return byCookie;
}

function scanInto(byCookie: Map<string, ProcInfo[]>): void {
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57 || Number(name) === process.pid) continue;
    let env: Buffer;
    try {
      // A leading NUL makes the first variable match like the others.
      env = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${name}/environ`)]);
    } catch {
      continue; // gone, or another user's
    }
    const at = env.indexOf(NEEDLE);
    if (at < 0) continue;
    let end = env.indexOf(0, at + NEEDLE.length);
    if (end < 0) end = env.length;
    const info = readProc(Number(name));
    if (!info || info.state === "Z" || info.state === "X") continue;
    const value = env.toString("latin1", at + NEEDLE.length, end);
    byCookie.set(value, [...(byCookie.get(value) ?? []), info]);
  }
}

/**
 * Live (non-zombie) processes whose environment holds the cookie `value` (`prefix` true:
 * any cookie starting with it). Only processes of the same user are readable: the limit.
 */
export function processesWithCookie(value: string, prefix = false): ProcInfo[] {
  if (process.platform !== "linux") return [];
  const all = scan();
  if (!prefix) return all.get(value) ?? [];
  return [...all].filter(([k]) => k.startsWith(value)).flatMap(([, v]) => v);
}
