// D10: the sidecar's own environment holds the host's secrets (API keys it passes to agents),
// and any process of the same user could read them from /proc/<sidecar>/environ — an agent
// included. At start the sidecar moves every variable onto the heap (unset, then set again:
// libc allocates new strings, so process.env keeps working) and overwrites the original
// block, whose range /proc/self/stat gives, through /proc/self/mem. Linux only; where the
// kernel refuses the write (no /proc, a hardened ptrace policy) the block stays and the
// README's fallback holds: the environment boundary still passes no undeclared secret on.
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";

const KEPT = ["A4AA_TEST_MARKER"];

/** "scrubbed", or why not. */
export function scrubOwnEnviron(): string {
  if (process.platform !== "linux") return `not on Linux (${process.platform})`;
  let start: number;
  let end: number;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name (which may hold spaces), from field 3 on: env_start is 50, env_end 51.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).trim().split(" ");
    start = Number(fields[50 - 3]);
    end = Number(fields[51 - 3]);
  } catch (e) {
    return `cannot read /proc/self/stat: ${(e as Error).message}`;
  }
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > 64 * 1024 * 1024) return `no usable environment range in /proc/self/stat (${start}–${end})`;
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    delete process.env[k];
    process.env[k] = v;
  }
  // Names that stay readable: not secrets, and what test harnesses and process supervisors find
  // a sidecar by (its test marker).
  const block = Buffer.alloc(end - start);
  let at = 0;
  for (const name of KEPT) {
    const v = process.env[name];
    if (v === undefined) continue;
    const entry = Buffer.from(`${name}=${v}\0`);
    if (at + entry.length > block.length) break;
    entry.copy(block, at);
    at += entry.length;
  }
  let fd: number | undefined;
  try {
    fd = openSync("/proc/self/mem", "r+");
    writeSync(fd, block, 0, block.length, start);
    return "scrubbed";
  } catch (e) {
    return `the kernel refused to let the sidecar overwrite its own environment block (${(e as Error).message})`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
