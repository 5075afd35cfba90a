// Shared agent processes (§13): live processes by sharing key, each holding up to
// `maxSessions` sessions. An open leases room on a live (or starting) process with the
// same key, else starts one; a process whose last lease ended is kept `idleMs` for the
// next open, then stopped; one that died leaves the pool at once, so the next open starts
// a fresh one (R-SHARE-2). What runs on a process is the lane's business; the pool only
// counts, keeps and ends processes.
import { checkRoom } from "../supervise/capacity.js";
import { createHash } from "node:crypto";
import type { ShareOptions } from "../../generated/ts/types.js";
import { A4aaError, errors } from "../errors.js";
import type { Logger } from "../log.js";
import { DEFAULTS } from "../../generated/ts/limits.js";

export const DEFAULT_MAX_SESSIONS: number = DEFAULTS.ShareOptions.maxSessions;
export const DEFAULT_IDLE_MS: number = DEFAULTS.ShareOptions.idleMs;

export interface PooledProcess {
  /** False once the process died or is stopping. */
  readonly alive: boolean;
  /** `cb` runs once when the process ends by itself (crash, exit, unusable). */
  onDeath(cb: () => void): void;
  /** Ends the process tree; resolves with whether nothing is left. */
  close(): Promise<{ clean: boolean; detail?: string }>;
}

export interface Lease<T extends PooledProcess> {
  proc: T;
  /** The session is gone from the process: its room is free again. Idempotent. */
  release(): void;
}

interface Entry {
  key: string;
  n: number;
  maxSessions: number;
  idleMs: number;
  ready: Promise<PooledProcess>;
  proc?: PooledProcess;
  holders: number;
  dead: boolean;
  idle?: NodeJS.Timeout;
}

/** Fills in the defaults of `share`. */
export function shareSettings(share: ShareOptions): { maxSessions: number; idleMs: number } {
  return { maxSessions: share.maxSessions ?? DEFAULT_MAX_SESSIONS, idleMs: share.idleMs ?? DEFAULT_IDLE_MS };
}

/** JSON with object keys sorted: equal values give equal text whatever the key order. */
function canonical(v: unknown): string {
  if (v === undefined) return "null";
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(",")}}`;
}

/** The sharing key: a hash of everything that makes two processes interchangeable. */
export function shareKey(parts: Record<string, unknown>): string {
  return createHash("sha256").update(canonical(parts)).digest("hex");
}

export class SharedPool {
  private readonly entries = new Set<Entry>();
  private counter = 0;
  private closed = false;

  constructor(private readonly logger: Logger) {}

  /** Live (or starting) processes for `key`. */
  live(key: string): number {
    let n = 0;
    for (const e of this.entries) if (e.key === key && !e.dead) n++;
    return n;
  }

  /** All live (or starting) processes. */
  get size(): number {
    return [...this.entries].filter((e) => !e.dead).length;
  }

  /**
   * Room for one session on a process of `key`: a live one that has room, a starting one,
   * else one `start` starts. Fails with the start's error.
   */
  async acquire<T extends PooledProcess>(key: string, share: ShareOptions, start: () => Promise<T>): Promise<Lease<T>> {
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw errors.sessionClosed("open", "the sidecar is shutting down");
      let entry = [...this.entries].find((e) => e.key === key && !e.dead && e.holders < e.maxSessions);
      entry ??= this.start(key, share, start);
      entry.holders++;
      if (entry.idle) clearTimeout(entry.idle);
      entry.idle = undefined;
      let proc: PooledProcess;
      try {
        proc = await entry.ready;
      } catch (e) {
        entry.holders--;
        throw e;
      }
      if (proc.alive && !entry.dead) return { proc: proc as T, release: this.releaser(entry) };
      entry.holders--;
      // It died between its start and this lease: try a fresh one, once.
      if (attempt >= 1) throw errors.agentExited("open", "the shared agent process ended while the session was opening it", { retryable: true });
    }
  }

  /** Makes `count` live processes exist for `key`; answers when every one is ready. */
  async prewarm(key: string, share: ShareOptions, start: () => Promise<PooledProcess>, count: number): Promise<{ processes: number; started: number }> {
    if (this.closed) throw errors.sessionClosed("open", "the sidecar is shutting down");
    const have = [...this.entries].filter((e) => e.key === key && !e.dead);
    // All or nothing: a prewarm that would cross --max-agent-processes starts none.
    checkRoom(count - have.length, "open", `agents/prewarm of ${count - have.length} more process(es)`);
    const fresh: Entry[] = [];
    for (let i = have.length; i < count; i++) fresh.push(this.start(key, share, start));
    await Promise.all([...have, ...fresh].map((e) => e.ready));
    // A prewarmed process without sessions waits idleMs like any other.
    for (const e of fresh) if (e.holders === 0) this.idleFrom(e);
    return { processes: this.live(key), started: fresh.length };
  }

  private start(key: string, share: ShareOptions, start: () => Promise<PooledProcess>): Entry {
    const s = shareSettings(share);
    const entry: Entry = { key, n: ++this.counter, maxSessions: s.maxSessions, idleMs: s.idleMs, holders: 0, dead: false, ready: start() };
    this.entries.add(entry);
    entry.ready.then(
      (proc) => {
        entry.proc = proc;
        proc.onDeath(() => this.forget(entry, "it ended"));
        if (!proc.alive) this.forget(entry, "it ended");
      },
      () => this.forget(entry, "it failed to start"),
    );
    return entry;
  }

  private forget(entry: Entry, why: string): void {
    if (entry.dead) return;
    entry.dead = true;
    if (entry.idle) clearTimeout(entry.idle);
    this.entries.delete(entry);
    this.logger.debug(`shared agent process #${entry.n} left the pool: ${why}`);
  }

  private releaser(entry: Entry): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      entry.holders--;
      if (entry.holders === 0 && !entry.dead) this.idleFrom(entry);
    };
  }

  private idleFrom(entry: Entry): void {
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = setTimeout(() => {
      if (entry.holders > 0 || entry.dead) return;
      this.forget(entry, `no session for ${entry.idleMs} ms`);
      void entry.proc?.close().then(
        (r) => !r.clean && this.logger.warn(`an idle shared agent process did not stop cleanly: ${r.detail ?? ""}`),
        (e) => this.logger.warn(`stopping an idle shared agent process failed: ${(e as Error).message}`),
      );
    }, entry.idleMs);
  }

  /** Shutdown: every process ends (their sessions were closed before). */
  async closeAll(): Promise<boolean> {
    this.closed = true;
    const all = [...this.entries];
    for (const e of all) this.forget(e, "shutdown");
    const results = await Promise.all(
      all.map((e) =>
        e.ready.then(
          (p) => p.close(),
          () => ({ clean: true }),
        ),
      ),
    );
    return results.every((r) => r.clean);
  }
}
