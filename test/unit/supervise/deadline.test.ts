// The one bounded wait of src/ (supervise/deadline.ts), on node:test's fake timers: no test
// here waits for real time. The timer checks read the event loop's own list of live timers.
import { test, mock, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { setImmediate as turn } from "node:timers/promises";
import { waitAtMost, withTimeout } from "../../../src/supervise/deadline.js";

/** What a promise has done so far, after pending callbacks ran (one event-loop turn, not a sleep). */
async function stateOf<T>(p: Promise<T>): Promise<{ value: T } | { error: unknown } | "pending"> {
  let s: { value: T } | { error: unknown } | "pending" = "pending";
  p.then(
    (value) => (s = { value }),
    (error: unknown) => (s = { error }),
  );
  await turn();
  return s;
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Live (ref'd) timers of the event loop. */
const liveTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

test.describe("with fake timers", () => {
  beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
  afterEach(() => mock.timers.reset());

  test("withTimeout: the work's value when it settles in time; the deadline does not fire later", async () => {
    const work = deferred<string>();
    const p = withTimeout(work.promise, 1000, () => new Error("late"));
    mock.timers.tick(999);
    assert.equal(await stateOf(p), "pending");
    work.resolve("done");
    assert.deepEqual(await stateOf(p), { value: "done" });
    mock.timers.tick(10_000);
    assert.deepEqual(await stateOf(p), { value: "done" });
  });

  test("withTimeout: rejects with onTimeout()'s error exactly at the deadline, built then", async () => {
    let built = 0;
    const p = withTimeout(new Promise(() => undefined), 500, () => new Error(`late #${++built}`));
    mock.timers.tick(499);
    assert.equal(await stateOf(p), "pending");
    assert.equal(built, 0, "the error is built when the deadline passes, not before");
    mock.timers.tick(1);
    const s = await stateOf(p);
    assert.ok(s !== "pending" && "error" in s && (s.error as Error).message === "late #1", JSON.stringify(s));
  });

  test("withTimeout: without onTimeout the error says how long it waited", async () => {
    const p = withTimeout(new Promise(() => undefined), 250);
    mock.timers.tick(250);
    await assert.rejects(p, /no answer within 250 ms/);
  });

  test("withTimeout: the work's own failure passes through unchanged", async () => {
    const boom = new Error("boom");
    await assert.rejects(withTimeout(Promise.reject(boom), 1000), (e) => e === boom);
  });

  test("withTimeout: the work failing after the deadline is not an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const work = deferred<void>();
      const p = withTimeout(work.promise, 100, () => new Error("late"));
      mock.timers.tick(100);
      await assert.rejects(p, /late/);
      work.reject(new Error("after the deadline"));
      await turn();
      await turn();
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  test("withTimeout: an abort ends the wait with the signal's reason, before the deadline", async () => {
    const ac = new AbortController();
    const p = withTimeout(new Promise(() => undefined), 1000, () => new Error("late"), { signal: ac.signal });
    mock.timers.tick(10);
    assert.equal(await stateOf(p), "pending");
    ac.abort(new Error("the session closed"));
    await assert.rejects(p, /the session closed/);
  });

  test("withTimeout: an already aborted signal rejects at once", async () => {
    const ac = new AbortController();
    ac.abort(new Error("gone already"));
    await assert.rejects(withTimeout(Promise.reject(new Error("ignored")), 1000, undefined, { signal: ac.signal }), /gone already/);
  });

  test("waitAtMost: true when the work settles (even by failing) in time, false at the deadline; never rejects", async () => {
    const ok = deferred<number>();
    const a = waitAtMost(ok.promise, 300);
    const b = waitAtMost(Promise.reject(new Error("ignored")), 300);
    const c = waitAtMost(new Promise(() => undefined), 300);
    mock.timers.tick(299);
    ok.resolve(1);
    assert.deepEqual(await stateOf(a), { value: true });
    assert.deepEqual(await stateOf(b), { value: true });
    assert.equal(await stateOf(c), "pending");
    mock.timers.tick(1);
    assert.deepEqual(await stateOf(c), { value: false });
  });

  test("waitAtMost: an abort ends the wait early with false", async () => {
    const ac = new AbortController();
    const p = waitAtMost(new Promise(() => undefined), 1000, { signal: ac.signal });
    ac.abort();
    assert.deepEqual(await stateOf(p), { value: false });
  });
});

test.describe("with the real event loop (no waiting: the deadlines are far away)", () => {
  test("the timer is cleared as soon as the work settles, and the abort listener removed", async () => {
    const before = liveTimers();
    const ac = new AbortController();
    const work = deferred<void>();
    const p = withTimeout(work.promise, 3_600_000, undefined, { signal: ac.signal });
    assert.equal(liveTimers(), before + 1, "one timer while waiting");
    assert.equal(getEventListeners(ac.signal, "abort").length, 1);
    work.resolve();
    await p;
    assert.equal(liveTimers(), before, "no timer left to keep the process alive");
    assert.equal(getEventListeners(ac.signal, "abort").length, 0, "no listener left on a long-lived signal");
  });

  test("a failed work clears the timer too", async () => {
    const before = liveTimers();
    await waitAtMost(Promise.reject(new Error("x")), 3_600_000);
    await assert.rejects(withTimeout(Promise.reject(new Error("y")), 3_600_000), /y/);
    assert.equal(liveTimers(), before);
  });

  test("unref: the timer does not keep the process alive while waiting", async () => {
    const before = liveTimers();
    const work = deferred<void>();
    const p = waitAtMost(work.promise, 3_600_000, { unref: true });
    assert.equal(liveTimers(), before);
    work.resolve();
    assert.equal(await p, true);
  });
});
