// The real `codex app-server` through a4aa serve: nothing of Codex survives the sidecar's
// SIGTERM mid-turn, stdin EOF mid-approval, or a close while Codex runs a command.
import { test } from "node:test";
import assert from "node:assert/strict";
import { poll, processesMentioning, processesWithMarker } from "../../fixtures/rpc/host.js";
import { noneLeft, reply, skip, startCodex } from "../helpers/codex-rpc.js";

test("R-SUP-1: SIGTERM to the sidecar mid-stream: it exits 0 and no codex process is left", { skip }, async () => {
  const r = await startCodex([reply.slow(Array.from({ length: 300 }, (_, i) => `t${i} `), 100)]);
  const sid = await r.open();
  const p = r.h.call("session/prompt", { sessionId: sid, text: "stream" });
  await r.h.waitFor(() => r.h.events(sid).some((e) => e.type === "messageChunk"), 30_000, "the first delta");
  assert.ok(processesWithMarker(r.marker).length >= 2, "codex (the node launcher and the native binary) runs");
  assert.equal(await r.h.terminate(), 0, r.h.stderr.slice(-3000));
  void p.catch(() => undefined);
  await noneLeft(r);
});

/** A command that runs long and names the test's marker, so that it can be found. */
const longCommand = (marker: string) => `sleep 300; echo ${marker}`;

test("R-SUP-1: SIGTERM while codex runs a long command: the command dies with codex", { skip }, async () => {
  const r = await startCodex([], { fallback: reply.text("...") });
  const cmd = longCommand(r.marker);
  r.mock.push(reply.shell(cmd), reply.text("started"));
  const sid = await r.open({ options: { permission: "bypass" } });
  const p = r.h.call("session/prompt", { sessionId: sid, text: "run it" });
  await poll(() => processesMentioning(r.marker).length > 0, 30_000, "the command to run");
  assert.equal(await r.h.terminate(), 0, r.h.stderr.slice(-3000));
  void p.catch(() => undefined);
  await noneLeft(r);
  assert.deepEqual(processesMentioning(r.marker), [], "the command is gone");
});

test("R-CLOSE-1: close while codex runs a command: the turn settles, the tree is gone, then the answer", { skip }, async () => {
  const r = await startCodex([], { fallback: reply.text("...") });
  r.mock.push(reply.shell(longCommand(r.marker)), reply.text("started"));
  const sid = await r.open({ options: { permission: "bypass" } });
  const p = r.h.call("session/prompt", { sessionId: sid, text: "run it" });
  await poll(() => processesMentioning(r.marker).length > 0, 30_000, "the command to run");
  assert.ok((await r.h.ok("session/close", { sessionId: sid })).processes);
  // Close answers only after the whole tree is gone.
  assert.deepEqual(processesMentioning(r.marker), []);
  assert.deepEqual(processesWithMarker(r.marker), []);
  const out = await p;
  assert.ok(out.result?.stopReason === "cancelled" || out.error?.data.code === "session_closed", JSON.stringify(out));
  assert.equal(await r.h.end(), 0);
  await noneLeft(r);
});

test("R-EOF-1: stdin EOF while a permission request is pending: exit 0, nothing left", { skip }, async () => {
  const r = await startCodex([reply.shell("touch never.txt"), reply.text("unreachable")]);
  const sid = await r.open();
  const p = r.h.call("session/prompt", { sessionId: sid, text: "make a file" });
  await r.h.waitFor(() => r.h.permissionRequests().length === 1, 30_000, "the permission request");
  assert.equal(await r.h.end(), 0, r.h.stderr.slice(-3000));
  void p.catch(() => undefined);
  await noneLeft(r);
});
