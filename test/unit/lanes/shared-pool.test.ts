// The pool of shared processes (§13) with stand-in processes: room, concurrent opens during
// a start, failed starts, deaths, idle expiry, prewarm, shutdown; and the sharing key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { A4aaError } from "../../../src/errors.js";
import { createLogger } from "../../../src/log.js";
import { SharedPool, shareKey, type PooledProcess } from "../../../src/lanes/shared-pool.js";

class Fake implements PooledProcess {
  alive = true;
  closed = 0;
  private deaths: (() => void)[] = [];
  onDeath(cb: () => void): void {
    this.deaths.push(cb);
  }
  die(): void {
    this.alive = false;
    for (const cb of this.deaths) cb();
  }
  async close(): Promise<{ clean: boolean }> {
    this.alive = false;
    this.closed++;
    return { clean: true };
  }
}

const logger = () => createLogger("error", () => undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function starter() {
  const started: Fake[] = [];
  return {
    started,
    start: async () => {
      await sleep(10);
      const f = new Fake();
      started.push(f);
      return f;
    },
  };
}

test("R-SHARE-2: opens with one key share a process until maxSessions; opens during its start wait for it instead of starting more", async () => {
  const pool = new SharedPool(logger());
  const { started, start } = starter();
  const leases = await Promise.all(Array.from({ length: 5 }, () => pool.acquire("k", { maxSessions: 2 }, start)));
  assert.equal(started.length, 3, "5 sessions, 2 per process");
  assert.equal(new Set(leases.map((l) => l.proc)).size, 3);
  const other = await pool.acquire("other", {}, start);
  assert.ok(!leases.some((l) => l.proc === other.proc), "another key never shares");
  assert.equal(pool.live("k"), 3);
  assert.ok(await pool.closeAll());
  assert.ok(started.every((f) => f.closed === 1));
});

test("R-SHARE-2: a failed start fails the opens waiting on it and leaves the pool; the next open starts again", async () => {
  const pool = new SharedPool(logger());
  let fail = true;
  const start = async () => {
    await sleep(5);
    if (fail) throw new A4aaError("spawn_failed", "spawn", "no such program");
    return new Fake();
  };
  const r = await Promise.allSettled([pool.acquire("k", {}, start), pool.acquire("k", {}, start)]);
  assert.deepEqual(r.map((x) => x.status), ["rejected", "rejected"]);
  assert.equal(pool.live("k"), 0);
  fail = false;
  const lease = await pool.acquire("k", {}, start);
  assert.ok(lease.proc.alive);
  await pool.closeAll();
});

test("R-SHARE-2: a process that died leaves the pool at once: the next open starts a fresh one", async () => {
  const pool = new SharedPool(logger());
  const { started, start } = starter();
  const a = await pool.acquire("k", {}, start);
  (a.proc as Fake).die();
  assert.equal(pool.live("k"), 0);
  const b = await pool.acquire("k", {}, start);
  assert.notEqual(b.proc, a.proc);
  assert.equal(started.length, 2);
  await pool.closeAll();
});

test("R-SHARE-2: the last release starts idleMs; an open meanwhile keeps the process; after it the process is closed", async () => {
  const pool = new SharedPool(logger());
  const { started, start } = starter();
  const a = await pool.acquire("k", { idleMs: 80 }, start);
  a.release();
  a.release(); // idempotent
  await sleep(30);
  const b = await pool.acquire("k", { idleMs: 80 }, start);
  assert.equal(b.proc, a.proc, "reused within idleMs");
  await sleep(120);
  assert.equal(started[0].closed, 0, "a process holding a session is never idle-closed");
  b.release();
  await sleep(150);
  assert.equal(started[0].closed, 1);
  assert.equal(pool.live("k"), 0);
  await pool.closeAll();
});

test("agents/prewarm: count live processes for the key, ready before it answers; idle ones end after idleMs", async () => {
  const pool = new SharedPool(logger());
  const { started, start } = starter();
  assert.deepEqual(await pool.prewarm("k", { idleMs: 100 }, start, 2), { processes: 2, started: 2 });
  assert.deepEqual(await pool.prewarm("k", { idleMs: 100 }, start, 2), { processes: 2, started: 0 });
  const lease = await pool.acquire("k", { idleMs: 100 }, start);
  assert.equal(started.length, 2, "the open found a prewarmed process");
  await sleep(200);
  assert.equal(started.filter((f) => f.closed).length, 1, "the unused prewarmed process ended after idleMs, the used one did not");
  lease.release();
  await pool.closeAll();
  await assert.rejects(pool.acquire("k", {}, start), (e: unknown) => e instanceof A4aaError && e.code === "session_closed");
});

test("the sharing key does not depend on key order, and differs for any differing value", () => {
  assert.equal(shareKey({ a: 1, env: { X: "1", Y: "2" } }), shareKey({ env: { Y: "2", X: "1" }, a: 1 }));
  assert.notEqual(shareKey({ env: { X: "1" } }), shareKey({ env: { X: "2" } }));
  assert.notEqual(shareKey({ args: ["a", "b"] }), shareKey({ args: ["b", "a"] }));
});
