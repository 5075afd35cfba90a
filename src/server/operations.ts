// R-REMOTE-6: operationId memory. A request that repeats an operationId its tenant sent in
// the last 10 minutes runs nothing: it gets the first request's outcome (waiting for it if
// it still runs); the same id with different params fails operation_conflict.
import { A4aaError } from "../errors.js";
import type { ErrorStage } from "../../generated/ts/types.js";

export const OPERATION_MEMORY_MS = 10 * 60_000;

interface Remembered {
  method: string;
  fingerprint: string;
  outcome: Promise<unknown>;
  /** When it may be forgotten (10 minutes after it was sent, or after it settled if later). */
  until: number;
  settled: boolean;
}

export class Operations {
  private readonly seen = new Map<string, Remembered>();

  constructor(
    private readonly memoryMs = OPERATION_MEMORY_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.seen.size;
  }

  /** Runs `fn` once per (tenant, operationId); `params` without operationId is what must match. */
  run<T>(tenant: string, operationId: string, method: string, params: object, stage: ErrorStage, fn: () => Promise<T>): Promise<T> {
    this.sweep();
    const key = `${tenant}\u0000${operationId}`;
    const { operationId: _op, ...rest } = params as Record<string, unknown>;
    const fingerprint = canonical(rest);
    const known = this.seen.get(key);
    if (known) {
      if (known.method !== method || known.fingerprint !== fingerprint) {
        return Promise.reject(
          new A4aaError(
            "operation_conflict",
            stage,
            `operationId ${JSON.stringify(operationId)} was already used for a different ${known.method === method ? `${method} request` : known.method} in the last ${Math.round(this.memoryMs / 60_000)} minutes; use a new operationId for a new request`,
          ),
        );
      }
      return known.outcome as Promise<T>;
    }
    const outcome = fn();
    const r: Remembered = { method, fingerprint, outcome, until: this.now() + this.memoryMs, settled: false };
    this.seen.set(key, r);
    const settle = () => {
      r.settled = true;
      r.until = Math.max(r.until, this.now() + this.memoryMs);
    };
    outcome.then(settle, settle);
    return outcome;
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, r] of this.seen) if (r.settled && r.until <= t) this.seen.delete(k);
  }
}

/** JSON with object keys sorted: equal params give equal text whatever their order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.keys(x as object).sort().map((k) => [k, (x as Record<string, unknown>)[k]]))
      : x,
  );
}
