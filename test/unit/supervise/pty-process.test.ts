import { test } from "node:test";
import assert from "node:assert/strict";
import { A4aaError } from "../../../src/errors.js";
import { loadNodePty } from "../../../src/supervise/pty-process.js";

test("a node-pty that cannot be loaded fails the open with spawn_failed and says how to fix it", async () => {
  const missing = () => Promise.reject(new Error("Cannot find module '../build/Release/pty.node'"));
  await assert.rejects(loadNodePty(missing), (e: unknown) => {
    assert.ok(e instanceof A4aaError);
    assert.equal(e.code, "spawn_failed");
    assert.equal(e.stage, "spawn");
    assert.match(e.message, /pty\.node/);
    assert.match(e.message, /install-scripts approve node-pty/);
    assert.match(e.message, /transport "pipe"/);
    return true;
  });
});

test("the real node-pty loads, with or without a default export", async () => {
  const pty = await loadNodePty();
  assert.equal(typeof pty.spawn, "function");
  const spawn = () => undefined;
  assert.equal((await loadNodePty(async () => ({ default: { spawn } }))).spawn, spawn);
  assert.equal((await loadNodePty(async () => ({ spawn }))).spawn, spawn);
});
