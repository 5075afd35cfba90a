// The stop ladder's options when several callers ask (issue 31: one interrupt inside the
// ladder; a later caller's shorter grace wins) and the guard failing closed (issue 30, N2).
import assert from "node:assert/strict";
import { test } from "node:test";
import { newMarker } from "../../helpers/procs.js";

// These tests are about the ladder's own graces: the test runner's short-grace cap
// (A4AA_TEST_GRACE_MS, read when the ladder's module loads) must not apply here.
delete process.env.A4AA_TEST_GRACE_MS;
const { SidecarGuard } = await import("../../../src/supervise/guard.js");
const { startPipe } = await import("../../../src/supervise/spawn.js");

const env = () => ({ PATH: process.env.PATH!, A4AA_TEST_MARKER: newMarker() });
// The script says "armed" once its trap is set: a signal sent before that would meet sh's
// default handler (the flake CI saw under load: ['stdin', 'SIGTERM'], no SIGKILL needed).
const sh = async (trap: string) => {
  const p = await startPipe({ program: "sh", args: ["-c", `${trap}; echo armed; while :; do sleep 0.05; done`], cwd: "/", env: env(), name: "ladder-test" });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`the test script did not arm its trap in 10 s (stdout: ${JSON.stringify(seen)})`)), 10_000);
    p.stdout.on("data", (c: Buffer) => {
      seen += c.toString();
      if (seen.includes("armed")) { clearTimeout(timer); resolve(); }
    });
  });
  return p;
};

test("R-SUP-1: interrupt() during a close's long stdin grace sends SIGTERM at once (one ladder, the shorter grace wins)", async () => {
  // Ignores stdin EOF; ends on SIGTERM.
  const p = await sh("trap 'exit 0' TERM");
  const t0 = Date.now();
  const closing = p.stop({ stdinGraceMs: 20_000 });
  await new Promise((r) => setTimeout(r, 200));
  const cancelled = p.interrupt(1000);
  const [a, b] = await Promise.all([closing, cancelled]);
  assert.equal(a, b, "one ladder for both callers");
  assert.deepEqual(a.steps, ["stdin", "SIGTERM"]);
  assert.ok(a.clean);
  assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms: the first caller's 20 s stdin grace was kept`);
});

test("R-SUP-1: a later stop() with a shorter SIGTERM grace escalates to SIGKILL sooner", async () => {
  const p = await sh("trap '' TERM");
  const t0 = Date.now();
  const first = p.stop({ stdinGraceMs: 0, termGraceMs: 20_000 });
  await new Promise((r) => setTimeout(r, 300));
  const r = await p.stop({ termGraceMs: 100 });
  assert.equal(r, await first);
  assert.deepEqual(r.steps, ["stdin", "SIGTERM", "SIGKILL"]);
  assert.ok(r.clean);
  assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
});

test("R-SUP-1: a later stop() that names no grace does not shorten the first caller's (defaults are not imposed)", async () => {
  const p = await sh("trap '' TERM");
  const t0 = Date.now();
  const first = p.stop({ stdinGraceMs: 0, termGraceMs: 2600 });
  const r = await p.stop();
  assert.equal(r, await first);
  assert.deepEqual(r.steps, ["stdin", "SIGTERM", "SIGKILL"]);
  assert.ok(Date.now() - t0 >= 2500, `SIGKILL after ${Date.now() - t0} ms: the default 2 s SIGTERM grace was imposed`);
});

test("R-SUP-4: a killed guard is replaced again and again; while none runs, armed() refuses (spawn_failed, retryable)", async () => {
  const g = new SidecarGuard();
  assert.equal(g.armed(), null, "the first guard starts on demand");
  const waitPid = async (not: number | undefined, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (g.pid !== undefined && g.pid !== not) return g.pid;
      await new Promise((r) => setTimeout(r, 2));
    }
    assert.fail(`no new guard within ${ms} ms`);
  };
  let pid = g.pid!;
  let refused = 0;
  // Five quick deaths: replaced at once, then after 50, 100, 200 and 400 ms.
  for (let i = 0; i < 5; i++) {
    process.kill(pid, "SIGKILL");
    // From the second quick death on, the replacement waits (50 ms, 100 ms, …): opens meanwhile fail closed.
    while (g.pid === pid) await new Promise((r) => setTimeout(r, 1));
    const e = g.armed();
    if (e) {
      refused++;
      assert.equal(e.code, "spawn_failed");
      assert.equal(e.retryable, true);
      assert.match(e.detail ?? "", /supervision guard is not running/);
    }
    pid = await waitPid(pid);
  }
  assert.ok(refused >= 3, `refused ${refused} of 5 times while backing off`);
  assert.equal(g.starts, 6, "replaced every time, without a limit");
  assert.equal(g.armed(), null);
  process.kill(pid, "SIGKILL");
});
