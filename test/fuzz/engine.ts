// Runs the framing fuzz (R-FRAME-8) against a real sidecar process: writes the seeded frames
// with backpressure while reading every answer, then checks that the process is alive, that
// every request was answered exactly once (by id, or with id null where the line had no
// readable id), and reports the process's peak memory.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { frames, type FrameOptions } from "./frames.js";

export interface FuzzOptions extends FrameOptions {
  /** The sidecar's command line. */
  argv: string[];
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the last answers after the last frame. */
  settleMs?: number;
}

export interface FuzzReport {
  frames: number;
  bytes: number;
  byKind: Record<string, number>;
  /** Responses expected with an id, and how many of them were missing or came more than once. */
  expectedIds: number;
  missing: string[];
  duplicated: string[];
  /** Responses nobody asked for (an id no frame carried, or too many id-null answers). */
  unexpected: string[];
  nullsExpected: number;
  nullsSeen: number;
  /** The process answered a ping after the last frame, and was still running then. */
  aliveAfter: boolean;
  /** Exit status after stdin EOF. */
  exitCode: number | null;
  exitSignal: string | null;
  peakRssBytes: number;
  durationMs: number;
  stderrTail: string;
}

/** Ids compared as JSON values: equal after re-serialisation (R-FRAME-4). */
export function canonicalId(text: string): string {
  return JSON.stringify(JSON.parse(text));
}

function peakRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const t0 = Date.now();
  const [program, ...args] = opts.argv;
  const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"], env: opts.env ?? process.env });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let running = true;
  void exited.then(() => (running = false));
  child.stdin.on("error", () => undefined);
  let stderrTail = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d: string) => {
    stderrTail = (stderrTail + d).slice(-8192);
  });

  const want = new Map<string, number>(); // canonical id → answers still owed
  const idOrNull = new Set<string>();
  const seen = new Map<string, number>();
  const unexpected: string[] = [];
  let nullsExpected = 0;
  let nullsSeen = 0;
  let answers = 0;
  let onAnswer: (() => void) | null = null;
  const owe = (id: string) => want.set(canonicalId(id), (want.get(canonicalId(id)) ?? 0) + 1);

  const record = (msg: any) => {
    if (!msg || typeof msg !== "object" || !("id" in msg)) {
      unexpected.push(`not a response: ${JSON.stringify(msg).slice(0, 200)}`);
      return;
    }
    if (msg.id === null) {
      nullsSeen++;
      return;
    }
    const id = JSON.stringify(msg.id);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  };

  let buf: Buffer = Buffer.alloc(0);
  child.stdout.on("data", (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    let start = 0;
    for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, start)) {
      const text = buf.subarray(start, i).toString("utf8");
      start = i + 1;
      answers++;
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch {
        unexpected.push(`not JSON on stdout: ${text.slice(0, 200)}`);
        continue;
      }
      if (Array.isArray(msg)) msg.forEach(record);
      else record(msg);
    }
    buf = buf.subarray(start);
    onAnswer?.();
  });

  // A write that waits for the pipe to drain, or for the process to die.
  const write = (b: Buffer) =>
    new Promise<void>((resolve) => {
      if (!running) return resolve();
      if (child.stdin.write(b)) return resolve();
      child.stdin.once("drain", resolve);
      void exited.then(() => resolve());
    });

  const byKind: Record<string, number> = {};
  let count = 0;
  let bytes = 0;
  // Frames are batched into ~64 KiB writes; the big ones go alone.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (!pending.length) return;
    const b = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    await write(b);
  };
  for (const f of frames(opts)) {
    count++;
    bytes += f.bytes.length;
    byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
    f.expect.ids.forEach(owe);
    f.expect.batch?.forEach(owe);
    nullsExpected += f.expect.nulls;
    if (f.expect.idOrNull) idOrNull.add(canonicalId(f.expect.idOrNull));
    if (f.bytes.length > 1 << 20) {
      await flush();
      await write(f.bytes);
    } else {
      pending.push(f.bytes);
      pendingBytes += f.bytes.length;
      if (pendingBytes > 1 << 16) await flush();
    }
    if (!running) break;
  }
  await flush();

  // A last ping: answered after everything before it was read (R-FRAME-6 allows any order of
  // answers, so wait for the counts to settle too).
  const last = JSON.stringify("fuzz-last-ping");
  owe(last);
  await write(Buffer.from(`{"jsonrpc":"2.0","id":${last},"method":"ping"}\n`));
  const deadline = Date.now() + (opts.settleMs ?? 30_000);
  let quietSince = Date.now();
  let lastAnswers = answers;
  while (Date.now() < deadline && running) {
    await new Promise<void>((r) => {
      onAnswer = r;
      setTimeout(r, 200);
    });
    onAnswer = null;
    if (answers !== lastAnswers) {
      lastAnswers = answers;
      quietSince = Date.now();
    }
    if ((seen.get(last) ?? 0) > 0 && Date.now() - quietSince > 500) break;
  }
  const aliveAfter = running && (seen.get(last) ?? 0) > 0;
  const peakRssBytes = child.pid ? peakRss(child.pid) : 0;

  child.stdin.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const exit = await exited;
  clearTimeout(timer);

  const missing: string[] = [];
  const duplicated: string[] = [];
  let expectedIds = 0;
  let nullsOwed = nullsExpected;
  for (const [id, n] of want) {
    expectedIds += n;
    const got = seen.get(id) ?? 0;
    if (got < n) missing.push(`${id} (${got} of ${n})`);
    if (got > n) duplicated.push(`${id} (${got} of ${n})`);
  }
  for (const id of idOrNull) {
    const got = seen.get(id) ?? 0;
    if (got === 0) nullsOwed++;
    else if (got > 1) duplicated.push(`${id} (${got} of 1)`);
  }
  for (const [id, n] of seen) if (!want.has(id) && !idOrNull.has(id)) unexpected.push(`an answer to ${id} (${n}×), which no frame asked`);
  if (nullsSeen > nullsOwed) unexpected.push(`${nullsSeen - nullsOwed} more id-null answers than lines without a readable id`);
  if (nullsSeen < nullsOwed) missing.push(`${nullsOwed - nullsSeen} id-null answers (bad lines left unanswered)`);

  return {
    frames: count,
    bytes,
    byKind,
    expectedIds,
    missing,
    duplicated,
    unexpected,
    nullsExpected: nullsOwed,
    nullsSeen,
    aliveAfter,
    exitCode: exit.code,
    exitSignal: exit.signal,
    peakRssBytes,
    durationMs: Date.now() - t0,
    stderrTail,
  };
}

/** One paragraph for a failure message or a log. */
export function describeReport(r: FuzzReport): string {
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  return [
    `${r.frames} frames (${mib(r.bytes)}) in ${(r.durationMs / 1000).toFixed(1)} s; peak RSS ${mib(r.peakRssBytes)}`,
    `answers by id: ${r.expectedIds} expected, missing ${r.missing.length}, duplicated ${r.duplicated.length}; id-null: ${r.nullsSeen} of ${r.nullsExpected}`,
    `alive after the last frame: ${r.aliveAfter}; exit after EOF: code ${r.exitCode} signal ${r.exitSignal}`,
    ...(r.missing.length ? [`missing: ${r.missing.slice(0, 10).join(", ")}`] : []),
    ...(r.duplicated.length ? [`duplicated: ${r.duplicated.slice(0, 10).join(", ")}`] : []),
    ...(r.unexpected.length ? [`unexpected: ${r.unexpected.slice(0, 10).join("; ")}`] : []),
    `kinds: ${Object.entries(r.byKind).map(([k, n]) => `${k} ${n}`).join(", ")}`,
    ...(r.stderrTail && (!r.aliveAfter || r.exitCode !== 0) ? [`stderr tail:\n${r.stderrTail}`] : []),
  ].join("\n");
}
