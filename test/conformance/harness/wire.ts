// The suite's only view of an implementation: a child process spoken to over NDJSON on
// its stdin/stdout. Every line in both directions goes into the transcript (truncated);
// stderr is kept for the failure report. Nothing here knows a4aa's own source.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

export type Direction = "send" | "recv" | "note";

export interface TranscriptEntry {
  /** ms since the process started */
  t: number;
  dir: Direction;
  text: string;
  /** the full length of the line, when `text` is truncated */
  bytes?: number;
}

const KEEP_CHARS = 400;
const STDERR_KEEP = 256 * 1024;

export function truncate(text: string, keep = KEEP_CHARS): string {
  return text.length <= keep ? text : `${text.slice(0, keep)}… (${text.length} chars)`;
}

/** A transcript line `ms` after the start: its text truncated, its full length kept then. */
export function transcriptEntry(ms: number, dir: Direction, text: string): TranscriptEntry {
  const e: TranscriptEntry = { t: ms, dir, text: truncate(text) };
  if (e.text.length !== text.length) e.bytes = Buffer.byteLength(text);
  return e;
}

/** Splits a shell-like command line into argv (quotes and backslashes; no expansion). */
export function splitCommand(cmd: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | null = null;
  let has = false;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < cmd.length) cur += cmd[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < cmd.length) {
      cur += cmd[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = "";
      has = false;
    } else cur += c;
  }
  if (has || cur) out.push(cur);
  return out;
}

export interface WireOptions {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  onLine: (line: string) => void;
  onStderr?: () => void;
}

/**
 * What a Host speaks through: the implementation's stdio (Wire), or one connection to its
 * listener (harness/remote.ts), where `proc`, `pid` and `stderr` are the listening process's.
 */
export type Channel = Pick<
  Wire,
  "proc" | "pid" | "transcript" | "exited" | "exit" | "stderr" | "stderrLength" | "note" | "writeLine" | "writeRaw" | "endInput" | "pauseReading" | "resumeReading" | "signal" | "destroy"
>;

/** Every implementation process still running, for an interrupted run to end. */
export const liveWires = new Set<Wire>();

export class Wire {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly transcript: TranscriptEntry[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private stderrText = "";
  private stderrDropped = 0;
  private readonly t0 = Date.now();
  private chunks: Buffer[] = [];
  private stdinOpen = true;

  constructor(private readonly opts: WireOptions) {
    const [program, ...args] = opts.argv;
    // Its own process group, so that the runner can end whatever it leaves behind.
    this.proc = spawn(program, args, { env: opts.env, cwd: opts.cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.exited = new Promise((resolve) => {
      const stdoutEnded = new Promise((r) => this.proc.stdout.once("close", r));
      this.proc.once("exit", (code, signal) => {
        // Whatever it wrote before exiting is read first (a leaked stdout must not hold us up).
        void Promise.race([stdoutEnded, new Promise((r) => setTimeout(r, 1000))]).then(() => {
          this.exit = { code, signal };
          this.note(`process exited: code ${code} signal ${signal}`);
          resolve(this.exit);
        });
      });
      this.proc.once("error", (e) => {
        this.note(`spawn error: ${e.message}`);
        this.exit = { code: null, signal: null };
        resolve(this.exit);
      });
    });
    liveWires.add(this);
    void this.exited.then(() => liveWires.delete(this));
    this.proc.stdin.on("error", () => undefined);
    this.proc.stderr.setEncoding("utf8");
    this.proc.stderr.on("data", (d: string) => {
      this.stderrText += d;
      if (this.stderrText.length > STDERR_KEEP * 2) {
        this.stderrDropped += this.stderrText.length - STDERR_KEEP;
        this.stderrText = this.stderrText.slice(-STDERR_KEEP);
      }
      opts.onStderr?.();
    });
    this.proc.stdout.on("data", (c: Buffer) => this.onData(c));
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** Everything written to stderr so far, including what was dropped (by length only). */
  get stderrLength(): number {
    return this.stderrDropped + this.stderrText.length;
  }

  private onData(c: Buffer): void {
    let start = 0;
    for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, start)) {
      this.chunks.push(c.subarray(start, i));
      const line = Buffer.concat(this.chunks).toString("utf8");
      this.chunks = [];
      start = i + 1;
      this.record("recv", line);
      this.opts.onLine(line);
    }
    if (start < c.length) this.chunks.push(c.subarray(start));
  }

  private record(dir: Direction, text: string): void {
    this.transcript.push(transcriptEntry(Date.now() - this.t0, dir, text));
  }

  note(text: string): void {
    this.record("note", text);
  }

  /** Writes one line (a `\n` is added); `Buffer`s go out as they are. Resolves when flushed. */
  writeLine(line: string | Buffer, label?: string): Promise<void> {
    if (typeof line === "string") this.record("send", line);
    else this.record("send", label ?? `<${line.length} raw bytes: ${line.subarray(0, 80).toString("latin1")}…>`);
    if (!this.stdinOpen) return Promise.resolve();
    return new Promise((resolve) => {
      const ok = this.proc.stdin.write(line);
      const ok2 = this.proc.stdin.write("\n");
      if (ok && ok2) resolve();
      else this.proc.stdin.once("drain", () => resolve());
    });
  }

  /** Writes raw bytes without a newline or transcript entry (for streaming huge lines). */
  writeRaw(chunk: Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.proc.stdin.write(chunk)) resolve();
      else this.proc.stdin.once("drain", () => resolve());
    });
  }

  /** Closes stdin (EOF). */
  endInput(): void {
    if (!this.stdinOpen) return;
    this.stdinOpen = false;
    this.note("host closed stdin (EOF)");
    this.proc.stdin.end();
  }

  pauseReading(): void {
    this.note("host stopped reading stdout");
    this.proc.stdout.pause();
  }

  resumeReading(): void {
    this.note("host resumed reading stdout");
    this.proc.stdout.resume();
  }

  signal(sig: NodeJS.Signals): void {
    this.note(`host sent ${sig}`);
    try {
      this.proc.kill(sig);
    } catch {
      // gone
    }
  }

  /** Ends the process and its whole group, whatever state it is in. */
  destroy(): void {
    const pid = this.proc.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // the group is gone
    }
    try {
      this.proc.kill("SIGKILL");
    } catch {
      // gone
    }
  }
}
