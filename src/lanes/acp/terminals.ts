// ACP `terminal/*`: commands an agent asks the client to run. They run under the same
// supervision (own process group, stop ladder) and environment as the agent itself, in
// the session's cwd (and in its sandbox, when it has one); output is capped, truncated from
// the start at a UTF-8 boundary.
import { realpathSync } from "node:fs";
import path from "node:path";
import { RpcErrorCode, isA4aaError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { startPipe, type PipeProcess, type SpawnWrapper } from "../../supervise/spawn.js";
import { RpcHandlerError } from "../../transport/json-rpc.js";
import { DEFAULTS } from "../../../generated/ts/limits.js";

const DEFAULT_OUTPUT_LIMIT = 1024 * 1024;
/** The largest `outputByteLimit` a terminal may ask for (R-HOSTILE-2): 64 MiB. */
export const MAX_OUTPUT_BYTE_LIMIT = 64 * 1024 * 1024;
/** Terminals one session holds at once (R-HOSTILE-2; `serve --max-terminals`). */
let maxTerminalsPerSession: number = DEFAULTS.ServeLimits.maxTerminalsPerSession;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Drops bytes from the front of `buf` so it holds at most `limit`, cutting at a UTF-8 boundary. */
export function keepTail(buf: Buffer, limit: number): { buf: Buffer; truncated: boolean } {
  if (buf.length <= limit) return { buf, truncated: false };
  let start = buf.length - limit;
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return { buf: buf.subarray(start), truncated: true };
}

/**
 * The last `limit` bytes of a stream, held as the chunks that arrived: whole chunks fall
 * off the front as new ones come, so holding never costs more than twice the limit and
 * no chunk is copied more than once; the UTF-8 cut is made when the output is asked for.
 */
export class OutputTail {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = false;

  constructor(readonly limit: number) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (chunk.length >= this.limit) {
      this.dropped ||= chunk.length > this.limit || this.bytes > 0;
      this.chunks = this.limit > 0 ? [Buffer.from(chunk.subarray(chunk.length - this.limit))] : [];
      this.bytes = this.limit;
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes - this.chunks[0].length >= this.limit) {
      this.bytes -= this.chunks.shift()!.length;
      this.dropped = true;
    }
  }

  read(): { text: string; truncated: boolean } {
    const r = keepTail(Buffer.concat(this.chunks, this.bytes), this.limit);
    let buf = r.buf;
    // Bytes already fell off the front: what is left may start inside a character.
    if (this.dropped && !r.truncated) buf = keepTail(Buffer.concat([Buffer.alloc(1), buf]), buf.length).buf;
    return { text: buf.toString("utf8"), truncated: this.dropped || r.truncated };
  }
}

/** `outputByteLimit` as given, or the refusal the agent gets. */
export function outputLimit(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_OUTPUT_LIMIT;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > MAX_OUTPUT_BYTE_LIMIT) {
    throw new RpcHandlerError(
      RpcErrorCode.InvalidParams,
      `invalid outputByteLimit ${JSON.stringify(v)}: it must be an integer from 0 to ${MAX_OUTPUT_BYTE_LIMIT} (64 MiB); omit it for ${DEFAULT_OUTPUT_LIMIT} (1 MiB)`,
    );
  }
  return v;
}

interface Terminal {
  proc: PipeProcess;
  out: OutputTail;
}

/** Output bytes reserved by the terminals of every session: a terminal reserves its limit from create to release. */
export class OutputBudget {
  private used = 0;

  constructor(readonly total: number) {}

  get reserved(): number {
    return this.used;
  }

  /** Reserves `bytes`, or throws the refusal the agent gets. */
  take(bytes: number): void {
    if (this.used + bytes > this.total) {
      throw new RpcHandlerError(
        RpcErrorCode.InvalidRequest,
        `refused: terminals already hold ${this.used} of the sidecar's ${this.total} bytes (${mib(this.total)}) of terminal output; release a terminal, or ask for a smaller outputByteLimit than ${bytes}`,
        { limit: "terminalOutputBudget", max: this.total, reserved: this.used, requested: bytes },
      );
    }
    this.used += bytes;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

const mib = (n: number) => `${Math.round((n / (1 << 20)) * 10) / 10} MiB`;

/**
 * The sidecar-wide budget every session's terminals draw from (R-HOSTILE-2): the
 * `outputByteLimit`s of every terminal held, all sessions together, add up to at most its
 * total. A terminal's output buffer never holds more than its limit (plus the chunk being
 * read), so this bounds what terminals can make the sidecar hold.
 */
export let terminalOutputBudget = new OutputBudget(DEFAULTS.ServeLimits.terminalOutputBudgetBytes);

/** `serve --max-terminals` and `--terminal-output-budget`; called before any session opens. */
export function setTerminalLimits(limits: { perSession?: number; budgetBytes?: number }): void {
  if (limits.perSession !== undefined) maxTerminalsPerSession = limits.perSession;
  if (limits.budgetBytes !== undefined) terminalOutputBudget = new OutputBudget(limits.budgetBytes);
}

export class Terminals {
  private readonly terms = new Map<string, Terminal>();
  private counter = 0;
  /** Terminals being started (counted against the limit before their process exists). */
  private starting = 0;

  constructor(
    private readonly root: string,
    private readonly env: Record<string, string>,
    private readonly logger: Logger,
    private readonly sessionId: string,
    /** R-SANDBOX-1: terminals run in the session's sandbox, as the agent does. */
    private readonly wrapper?: SpawnWrapper,
    /** Most terminals held at once (created, not yet released). */
    private readonly max: number = maxTerminalsPerSession,
    private readonly budget: OutputBudget = terminalOutputBudget,
  ) {}

  get size(): number {
    return this.terms.size;
  }

  /** Forgets a terminal: its output buffer is let go and its bytes go back to the budget. */
  private drop(id: string, t: Terminal): void {
    if (this.terms.get(id) !== t) return;
    this.terms.delete(id);
    this.budget.give(t.out.limit);
  }

  private get(id: unknown): Terminal {
    const t = typeof id === "string" ? this.terms.get(id) : undefined;
    if (!t) throw new RpcHandlerError(RpcErrorCode.InvalidParams, `unknown terminal ${JSON.stringify(id)}`);
    return t;
  }

  async create(p: {
    command: string;
    args?: string[] | null;
    env?: { name: string; value: string }[] | null;
    cwd?: string | null;
    outputByteLimit?: number | null;
  }): Promise<{ terminalId: string }> {
    const limit = outputLimit(p.outputByteLimit);
    if (this.terms.size + this.starting >= this.max) {
      throw new RpcHandlerError(
        RpcErrorCode.InvalidRequest,
        `refused: this session already holds ${this.max} terminals, the most it may hold at once; release one (terminal/release) first`,
        { limit: "maxTerminals", max: this.max },
      );
    }
    const env: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, this.env);
    for (const v of p.env ?? []) {
      if (!NAME.test(v.name) || typeof v.value !== "string" || v.value.includes("\0")) {
        throw new RpcHandlerError(RpcErrorCode.InvalidParams, `invalid environment variable ${JSON.stringify(v.name)}`);
      }
      env[v.name] = v.value;
    }
    let cwd = this.root;
    if (p.cwd) {
      if (!path.isAbsolute(p.cwd)) throw new RpcHandlerError(RpcErrorCode.InvalidParams, `cwd must be absolute: ${p.cwd}`);
      let real: string;
      try {
        real = realpathSync(p.cwd);
      } catch {
        throw new RpcHandlerError(RpcErrorCode.InvalidParams, `no such directory: ${p.cwd}`);
      }
      const root = realpathSync(this.root);
      if (real !== root && !real.startsWith(root + path.sep)) {
        throw new RpcHandlerError(RpcErrorCode.InvalidParams, `refused: cwd ${p.cwd} is outside the session's working directory`);
      }
      cwd = real;
    }
    const id = `term-${++this.counter}`;
    // Reserved before the process starts: concurrent creates cannot overrun either bound.
    this.budget.take(limit);
    this.starting++;
    let proc: PipeProcess;
    try {
      proc = await startPipe({ program: p.command, args: p.args ?? [], cwd, env, name: `terminal ${id}`, wrapper: this.wrapper });
    } catch (e) {
      this.budget.give(limit);
      throw new RpcHandlerError(RpcErrorCode.InternalError, isA4aaError(e) ? (e.detail ?? e.message) : (e as Error).message);
    } finally {
      this.starting--;
    }
    proc.stdin.end();
    const t: Terminal = { proc, out: new OutputTail(limit) };
    const append = (chunk: Buffer) => t.out.push(chunk);
    proc.stdout.on("data", append);
    proc.onStderrLine((line) => append(Buffer.from(line + "\n")));
    this.terms.set(id, t);
    this.logger.debug(`terminal ${id}: ${p.command} ${(p.args ?? []).join(" ")}`, this.sessionId);
    return { terminalId: id };
  }

  private exitStatus(t: Terminal): { exitCode: number | null; signal: string | null } | null {
    return t.proc.exit ? { exitCode: t.proc.exit.code, signal: t.proc.exit.signal } : null;
  }

  output(p: { terminalId: string }): { output: string; truncated: boolean; exitStatus?: { exitCode: number | null; signal: string | null } } {
    const t = this.get(p.terminalId);
    const status = this.exitStatus(t);
    const out = t.out.read();
    return { output: out.text, truncated: out.truncated, ...(status ? { exitStatus: status } : {}) };
  }

  async waitForExit(p: { terminalId: string }): Promise<{ exitCode: number | null; signal: string | null }> {
    const t = this.get(p.terminalId);
    const e = await t.proc.exited;
    return { exitCode: e.code, signal: e.signal };
  }

  async kill(p: { terminalId: string }): Promise<Record<string, never>> {
    const t = this.get(p.terminalId);
    await t.proc.stop({ stdinGraceMs: 0, termGraceMs: 1000 });
    return {};
  }

  async release(p: { terminalId: string }): Promise<Record<string, never>> {
    const t = this.get(p.terminalId);
    this.drop(p.terminalId, t);
    await t.proc.stop({ stdinGraceMs: 0, termGraceMs: 1000 });
    return {};
  }

  /** Kills and releases every terminal; resolves false if a process tree survived. */
  async killAll(): Promise<boolean> {
    const all = [...this.terms.values()];
    for (const [id, t] of [...this.terms]) this.drop(id, t);
    const results = await Promise.all(all.map((t) => t.proc.stop({ stdinGraceMs: 0, termGraceMs: 1000 })));
    return results.every((r) => r.clean);
  }
}
