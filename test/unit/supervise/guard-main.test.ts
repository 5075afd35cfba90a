// The guard process (R-SUP-4): on EOF of its stdin it ends the groups it was told about and
// every process with the sidecar's cookie prefix — also ones that ignore SIGTERM — and only those.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readProc } from "../../../src/supervise/process-tree.js";
import { ignoresTerm, newMarker, poll, waitGone } from "../../helpers/procs.js";

const GUARD = fileURLToPath(new URL("../../../src/supervise/guard-main.js", import.meta.url));
const STUBBORN = "trap '' TERM; while true; do sleep 1; done";
const alive = (pid: number) => {
  const p = readProc(pid);
  return !!p && p.state !== "Z";
};

test("R-SUP-4: on EOF the guard ends a registered group and a cookie carrier that ignore SIGTERM; a released group and a foreign cookie are left alone", async () => {
  const env = (cookie?: string) => ({ PATH: process.env.PATH!, A4AA_TEST_MARKER: newMarker(), ...(cookie ? { A4AA_AGENT_COOKIE: cookie } : {}) });
  const group = spawn("sh", ["-c", STUBBORN], { detached: true, stdio: "ignore", env: env() });
  const released = spawn("sh", ["-c", STUBBORN], { detached: true, stdio: "ignore", env: env() });
  const carrier = spawn("sh", ["-c", STUBBORN], { detached: true, stdio: "ignore", env: env("guardtest.3") });
  const foreign = spawn("sh", ["-c", STUBBORN], { detached: true, stdio: "ignore", env: env("otherside.3") });
  const all = [group, released, carrier, foreign];
  try {
    await poll(() => all.every((c) => ignoresTerm(c.pid!)), 10_000, "the shells to ignore SIGTERM");
    const g = spawn(process.execPath, [GUARD, "300"], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    g.stderr.on("data", (d) => (stderr += d));
    const start = (pid: number) => readProc(pid)!.start;
    g.stdin.write(`prefix guardtest.\n+ ${group.pid} ${start(group.pid!)}\n+ ${released.pid} ${start(released.pid!)}\n- ${released.pid}\n`);
    const t0 = Date.now();
    g.stdin.end();
    await new Promise((r) => g.once("exit", r));
    assert.deepEqual(await waitGone(() => [group.pid!, carrier.pid!].filter(alive), 1000), []);
    // SIGKILL came after the 300 ms grace, not after a default's seconds (generous: a loaded machine).
    assert.ok(Date.now() - t0 < 10_000, `took ${Date.now() - t0} ms`);
    assert.ok(alive(released.pid!), "a released group is not the guard's");
    assert.ok(alive(foreign.pid!), "another sidecar's cookie is not the guard's");
    assert.match(stderr, /ended \d+ process\(es\), \d+ by SIGKILL/);
  } finally {
    for (const c of all) {
      try {
        process.kill(-c.pid!, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
});

test("R-SUP-4: the guard skips a registered group whose leader's start time says the pid was reused", async () => {
  const other = spawn("sh", ["-c", STUBBORN], { detached: true, stdio: "ignore", env: { PATH: process.env.PATH!, A4AA_TEST_MARKER: newMarker() } });
  try {
    await poll(() => ignoresTerm(other.pid!), 10_000, "the shell to ignore SIGTERM");
    const g = spawn(process.execPath, [GUARD, "300"], { stdio: ["pipe", "ignore", "ignore"] });
    g.stdin.end(`prefix guardtest2.\n+ ${other.pid} 1\n`);
    await new Promise((r) => g.once("exit", r));
    assert.ok(alive(other.pid!), "a group led by a newer process was signalled");
  } finally {
    process.kill(-other.pid!, "SIGKILL");
  }
});

test("R-SUP-4: on EOF the guard removes the temporary paths it was told about, not a released one", async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "a4aa-guard-paths-"));
  try {
    const kept = path.join(base, "kept with space");
    const removed = path.join(base, "removed dir");
    for (const d of [kept, removed]) {
      mkdirSync(d);
      writeFileSync(path.join(d, "mcp.json"), "secret");
    }
    const g = spawn(process.execPath, [GUARD, "300"], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    g.stderr.on("data", (d) => (stderr += d));
    g.stdin.end(`prefix guardtest3.\nf ${removed}\nf ${kept}\n-f ${kept}\n`);
    await new Promise((r) => g.once("exit", r));
    assert.equal(existsSync(removed), false, "a registered folder is removed");
    assert.equal(existsSync(kept), true, "a released folder is its owner's business");
    assert.match(stderr, /removed 1 temporary path\(s\)/);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
