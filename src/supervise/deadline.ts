// Bounded waits: the one `Promise.race`-plus-timer of src/. The timer is cleared as soon as
// the work settles (a pending timer would keep the sidecar alive until it fired), the work's
// own later rejection is never left unhandled, and an abort signal ends the wait early.
// A request to a JSON-RPC peer is bounded by the peer's own `timeoutMs` instead.

export interface DeadlineOptions {
  /** Ends the wait early: `withTimeout` rejects with the signal's reason, `waitAtMost` returns false. */
  signal?: AbortSignal;
  /** The timer alone does not keep the process alive (for waits that something else holds open). */
  unref?: boolean;
}

type Outcome<T> = { settled: true; value: T } | { settled: true; error: unknown } | { settled: false; aborted: boolean };

/** `work`'s outcome, or that `ms` passed (or `signal` aborted) first. Never rejects. */
function race<T>(work: PromiseLike<T>, ms: number, o: DeadlineOptions): Promise<Outcome<T>> {
  return new Promise((resolve) => {
    const { signal } = o;
    if (signal?.aborted) {
      // Still observed: a rejection of work nobody waits for is not an unhandled one.
      Promise.resolve(work).catch(() => undefined);
      return resolve({ settled: false, aborted: true });
    }
    const finish = (r: Outcome<T>) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(r);
    };
    const onAbort = () => finish({ settled: false, aborted: true });
    const timer = setTimeout(() => finish({ settled: false, aborted: false }), Math.max(0, ms));
    if (o.unref) timer.unref?.();
    signal?.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(work).then(
      (value) => finish({ settled: true, value }),
      (error: unknown) => finish({ settled: true, error }),
    );
  });
}

/**
 * Settles as `work` does if it does within `ms`; else rejects with `onTimeout()` (default: an
 * Error saying how long it waited), or with the signal's reason if `signal` aborts first.
 */
export async function withTimeout<T>(work: PromiseLike<T>, ms: number, onTimeout?: () => Error, o: DeadlineOptions = {}): Promise<T> {
  const r = await race(work, ms, o);
  if (r.settled) {
    if ("error" in r) throw r.error;
    return r.value;
  }
  if (r.aborted) throw o.signal!.reason;
  throw onTimeout ? onTimeout() : new Error(`no answer within ${ms} ms`);
}

/**
 * Waits for `work` (its result and any failure ignored) at most `ms`: true if it settled in
 * time, false if the time ran out or `signal` aborted first. Never rejects.
 */
export async function waitAtMost(work: PromiseLike<unknown>, ms: number, o: DeadlineOptions = {}): Promise<boolean> {
  return (await race(work, ms, o)).settled;
}
