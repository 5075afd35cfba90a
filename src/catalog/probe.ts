// Reads an installed program's version (`--version`), bounded in time, under supervision
// (its own process group, stopped whatever happens), each program once per sidecar.
import { waitAtMost } from "../supervise/deadline.js";
import { startPipe } from "../supervise/spawn.js";
import { LIMITS } from "../../generated/ts/limits.js";

export const PROBE_TIMEOUT_MS: number = LIMITS.versionProbeMs;
const VERSION = /\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?/;

/** The first version-looking word of a `--version` output. */
export function parseVersion(text: string): string | undefined {
  return text.match(VERSION)?.[0];
}

export async function probeVersion(
  file: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<string | undefined> {
  let proc;
  try {
    proc = await startPipe({ program: file, args, cwd: "/", env, name: `${file} --version`, bounded: false });
  } catch {
    return undefined;
  }
  let out = "";
  proc.stdout.setEncoding("utf8");
  proc.stdout.on("data", (c: string) => {
    if (out.length < 64 * 1024) out += c;
  });
  proc.stdin.end();
  await waitAtMost(proc.exited, timeoutMs);
  await proc.stop({ stdinGraceMs: 200, termGraceMs: 500 }).catch(() => undefined);
  return parseVersion(out) ?? parseVersion(proc.stderrTail());
}
