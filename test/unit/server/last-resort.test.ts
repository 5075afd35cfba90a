import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

const MODULE = new URL("../../../src/server/last-resort.js", import.meta.url).href;
const LOG = new URL("../../../src/log.js", import.meta.url).href;

test("R-HOSTILE-4: an uncaught exception and an unhandled rejection are logged, hooks see them first, and the process goes on", () => {
  const script = `
    const { installLastResort, onFault } = await import(${JSON.stringify(MODULE)});
    const { createLogger } = await import(${JSON.stringify(LOG)});
    installLastResort(createLogger("warn"));
    onFault((e, origin) => { process.stderr.write("hook " + origin + "\\n"); return e instanceof Error && e.message === "mine"; });
    setTimeout(() => { throw new Error("mine"); }, 1);
    setTimeout(() => { Promise.reject("not an error"); }, 5);
    setTimeout(() => { process.stdout.write("still serving"); }, 50);
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 10_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "still serving");
  const lines = r.stderr.trim().split("\n").filter((l) => !l.startsWith("    at "));
  assert.equal(lines[0], "hook uncaughtException");
  assert.match(lines[1], /^a4aa error: uncaughtException \(its session was failed\): Error: mine/);
  assert.equal(lines[2], "hook unhandledRejection");
  assert.match(lines[3], /^a4aa error: unhandledRejection: not an error — the sidecar keeps serving/);
});
