// The agent cookie (R-SUP-5): found in /proc/*/environ, exactly or by the sidecar's prefix.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { AGENT_COOKIE_VAR, newCookie, processesWithCookie, sidecarCookiePrefix } from "../../../src/supervise/cookie.js";
import { newMarker, poll } from "../../helpers/procs.js";

test("R-SUP-5: processesWithCookie finds a process by its exact cookie, and every cookie of this sidecar by the prefix", async () => {
  const a = newCookie();
  const b = newCookie();
  assert.ok(a.startsWith(sidecarCookiePrefix()) && b.startsWith(sidecarCookiePrefix()) && a !== b);
  const env = (c: string) => ({ PATH: process.env.PATH!, A4AA_TEST_MARKER: newMarker(), [AGENT_COOKIE_VAR]: c });
  // A cookie that merely starts with another is a different cookie (`.1` vs `.10`).
  const kids = [spawn("sleep", ["30"], { env: env(a) }), spawn("sleep", ["30"], { env: env(b) }), spawn("sleep", ["30"], { env: env(`${a}0`) })];
  try {
    await Promise.all(kids.map((k) => new Promise((r) => k.once("spawn", r))));
    // Past exec: the environ read from /proc is the child's own.
    await poll(() => kids.every((k) => processesWithCookie(sidecarCookiePrefix(), true).some((p) => p.pid === k.pid)), 10_000, "the children's exec");
    assert.deepEqual(processesWithCookie(a).map((p) => p.pid), [kids[0].pid]);
    assert.deepEqual(processesWithCookie(b).map((p) => p.pid), [kids[1].pid]);
    const all = processesWithCookie(sidecarCookiePrefix(), true).map((p) => p.pid);
    for (const k of kids) assert.ok(all.includes(k.pid!), `${k.pid} has a cookie of this sidecar`);
    assert.deepEqual(processesWithCookie("no-such-cookie"), []);
  } finally {
    for (const k of kids) k.kill("SIGKILL");
  }
});
