// The rpc lane (dialect codexAppServer) end to end against the fake app-server — cancel (turn/interrupt and its race), crash, close and SIGTERM mid-turn.
// The real Codex is tested in test/real/codex/rpc.*.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fakeSpec, processesWithMarker, waitGone } from "../../fixtures/rpc/host.js";
import { cleanupAfterAll, finish, prompt, setup } from "./setup.js";

cleanupAfterAll();

test("R-CANCEL-1: cancel → turn/interrupt → cancelled; the session goes on", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  const p = prompt(h, sid, "slow:200");
  await h.waitFor(() => h.events(sid).some((e) => e.type === "messageChunk"), 10_000, "the first delta");
  assert.deepEqual(await h.ok("session/cancel", { sessionId: sid }), {});
  const r = await p;
  assert.equal(r.result?.stopReason, "cancelled");
  assert.match(r.result?.text, /^tick 0/);
  assert.equal((await h.ok("session/prompt", { sessionId: sid, text: "text:next" })).stopReason, "endTurn");
  await finish(h, marker);
});

test("R-CANCEL-1: an interrupt that races ahead of turn/started is sent again once the turn has started", async () => {
  const { h, marker } = setup(["--cancel-grace", "60000", "--log-level", "debug"]);
  const sid = await h.open(fakeSpec(marker));
  // The fake answers turn/start at once but starts the turn 1.5 s later, refusing
  // interrupts until then (as Codex does); the turn would then stream for 20 s.
  const p = prompt(h, sid, "late-start:1500;slow:100:200");
  await h.ok("session/cancel", { sessionId: sid });
  const t0 = Date.now();
  const r = await p;
  assert.equal(r.result?.stopReason, "cancelled");
  assert.ok(Date.now() - t0 < 15_000, "settled by the agent's interrupted turn, not by the grace timer");
  assert.ok(h.events(sid).filter((e) => e.type === "messageChunk").length < 50, "the turn stopped early");
  await h.stderrMatch(/turn\/interrupt refused .*no active turn to interrupt/, "the race was run");
  await finish(h, marker);
});

test("R-CANCEL-1: cancel while the host is deciding an approval: the request fails closed (decline), the turn is cancelled", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  const p = prompt(h, sid, "cmd:touch z;slow:100");
  await h.waitFor(() => h.permissionRequests().length === 1, 10_000, "the permission request");
  await h.ok("session/cancel", { sessionId: sid });
  const r = await p;
  assert.equal(r.result?.stopReason, "cancelled");
  const res = h.events(sid).find((e) => e.type === "permissionResolved") as any;
  assert.deepEqual([res.outcome, res.decidedBy], ["cancelled", "policy"]);
  await finish(h, marker);
});

test("R-CANCEL-1: a turn that ignores the interrupt settles cancelled after the grace period", async () => {
  const { h, marker } = setup(["--cancel-grace", "500"]);
  const sid = await h.open(fakeSpec(marker));
  const p = prompt(h, sid, "text:a;hang");
  await h.waitFor(() => h.events(sid).some((e) => e.type === "messageChunk"));
  await h.ok("session/cancel", { sessionId: sid });
  assert.equal((await p).result?.stopReason, "cancelled");
  await finish(h, marker);
});

test("R-SUP-2: codex crashing mid-turn fails the turn with agent_exited (stderr tail); close still works", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  const r = await prompt(h, sid, "crash");
  assert.equal(r.error?.data.code, "agent_exited");
  assert.equal(r.error?.data.uncertainEffect, true);
  assert.match(r.error?.data.detail, /exited with code 3[\s\S]*crashing mid-turn/);
  const again = await prompt(h, sid, "text:x");
  assert.equal(again.error?.data.code, "agent_exited");
  assert.ok((await h.ok("session/close", { sessionId: sid })).processes);
  await finish(h, marker);
});

test("R-SUP-1: SIGTERM to the sidecar mid-turn leaves no codex process or grandchild behind", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  await h.ok("session/prompt", { sessionId: sid, text: "grandchild" });
  const p = prompt(h, sid, "slow:400");
  await h.waitFor(() => h.events(sid).some((e) => e.type === "messageChunk" && /tick/.test((e as any).text)));
  assert.ok(processesWithMarker(marker).length >= 3, "codex and its grandchildren run");
  const code = await h.terminate();
  assert.equal(code, 0, h.stderr.slice(-2000));
  void p;
  assert.deepEqual(await waitGone(() => processesWithMarker(marker)), [], "no process of the test is left");
});

test("R-CLOSE-1: close mid-turn settles the turn and ends the tree", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  const p = prompt(h, sid, "slow:400");
  await h.waitFor(() => h.events(sid).some((e) => e.type === "messageChunk"));
  assert.ok((await h.ok("session/close", { sessionId: sid })).processes);
  const r = await p;
  assert.equal(r.result?.stopReason, "cancelled");
  assert.deepEqual(await waitGone(() => processesWithMarker(marker)), []);
  await finish(h, marker);
});
