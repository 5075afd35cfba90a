// Runs checks: each in a fresh context (its own processes and marker), bounded in time,
// with everything it started ended afterwards. Heavy checks run alone, first.
import { rmSync } from "node:fs";
import { AssertionError } from "node:assert";
import { CheckContext, Skip, liveMarkers, type Check } from "./context.js";
import { CheckFailure } from "./client.js";
import { killMarked } from "./procs.js";
import type { TranscriptEntry } from "./wire.js";

export type Status = "pass" | "fail" | "skip";

export interface ProcessRecord {
  argv: string[];
  exit: { code: number | null; signal: string | null } | null;
  transcript: TranscriptEntry[];
  stderrTail: string;
}

export interface CheckResult {
  id: string;
  covers: string[];
  title: string;
  status: Status;
  ms: number;
  error?: string;
  processes: ProcessRecord[];
}

const DEFAULT_TIMEOUT_MS = 60_000;

function message(e: unknown): string {
  if (e instanceof AssertionError) return e.message;
  if (e instanceof CheckFailure) return e.message;
  if (e instanceof Error) return `${e.name}: ${e.message}${e.stack ? `\n${e.stack.split("\n").slice(1, 4).join("\n")}` : ""}`;
  return String(e);
}

export async function runCheck(check: Check, serverArgv: string[]): Promise<CheckResult> {
  const ctx = new CheckContext(serverArgv);
  const t0 = Date.now();
  let status: Status = "pass";
  let error: string | undefined;
  const limit = check.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const running = check.run(ctx);
  running.catch(() => undefined);
  try {
    await Promise.race([
      running,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new CheckFailure(`the check did not finish within ${limit} ms`)), limit))),
    ]);
  } catch (e) {
    if (e instanceof Skip) {
      status = "skip";
      error = e.message;
    } else {
      status = "fail";
      error = message(e);
    }
  } finally {
    clearTimeout(timer);
  }
  const violations = ctx.hosts.flatMap((h) => h.violations);
  if (status !== "skip" && violations.length) {
    status = "fail";
    error = `${error ? `${error}\n` : ""}invalid messages on the wire:\n${violations.map((v) => `  - ${v}`).join("\n")}`;
  }
  const processes = ctx.hosts.map((h) => ({
    argv: h.wire.proc.spawnargs,
    exit: h.wire.exit,
    transcript: h.wire.transcript,
    stderrTail: h.stderr.slice(-4096),
  }));
  for (const h of ctx.hosts) h.wire.destroy();
  killMarked(ctx.marker);
  liveMarkers.delete(ctx.marker);
  if (ctx.tmpIfAny) rmSync(ctx.tmpIfAny, { recursive: true, force: true });
  return { id: check.id, covers: check.covers, title: check.title, status, ms: Date.now() - t0, error, processes };
}

export async function runAll(checks: Check[], serverArgv: string[], jobs: number, onResult: (r: CheckResult) => void): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const heavy = checks.filter((c) => c.heavy);
  const light = checks.filter((c) => !c.heavy);
  for (const c of heavy) {
    const r = await runCheck(c, serverArgv);
    results.push(r);
    onResult(r);
  }
  let next = 0;
  const worker = async () => {
    while (next < light.length) {
      const c = light[next++];
      const r = await runCheck(c, serverArgv);
      results.push(r);
      onResult(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  const order = new Map(checks.map((c, i) => [c.id, i]));
  return results.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}
