// The rpc lane (dialect codexAppServer) end to end against the fake app-server — approvals relayed as permission requests, fail-closed, presets.
// The real Codex is tested in test/real/codex/rpc.*.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fakeSpec, type PermissionAnswer } from "../../fixtures/rpc/host.js";
import { cleanupAfterAll, finish, prompt, setup } from "./setup.js";

cleanupAfterAll();

test("R-PERM-1: command approval relayed with Codex's decisions as options; the host's choice goes back", async () => {
  const { h, marker } = setup(undefined, () => ({ result: { selected: "accept" } }));
  const sid = await h.open(fakeSpec(marker));
  const r = await h.ok("session/prompt", { sessionId: sid, text: "cmd:touch x" });
  assert.equal(r.text, 'decision="accept"');
  const [req] = h.permissionRequests();
  assert.equal(req.kind, "execute");
  assert.equal(req.title, "touch x");
  assert.match(req.toolCallId, /^call_/);
  assert.deepEqual(
    req.options.map((o: any) => [o.optionId, o.kind]),
    [
      ["accept", "allowOnce"],
      ["acceptForSession", "allowAlways"],
      ["acceptWithExecpolicyAmendment", "allowAlways"],
      ["decline", "rejectOnce"],
      ["cancel", "rejectOnce"],
    ],
    "an unknown structured decision is not offered",
  );
  assert.equal(req.raw.command, "touch x");
  const evs = h.events(sid);
  const call = evs.find((e) => e.type === "toolCall") as any;
  assert.deepEqual([call.toolCallId, call.kind, call.title], [req.toolCallId, "execute", "touch x"]);
  assert.deepEqual(evs.find((e) => e.type === "permissionResolved"), { type: "permissionResolved", toolCallId: req.toolCallId, outcome: "selected", optionId: "accept", decidedBy: "host" });
  const upd = evs.find((e) => e.type === "toolCallUpdate") as any;
  assert.deepEqual([upd.status, upd.contentTexts], ["completed", ["ran\n"]]);
  await finish(h, marker);
});

test("R-PERM-1: a structured decision chosen by the host is sent back whole", async () => {
  const { h, marker } = setup(undefined, () => ({ result: { selected: "acceptWithExecpolicyAmendment" } }));
  const sid = await h.open(fakeSpec(marker));
  const r = await h.ok("session/prompt", { sessionId: sid, text: "cmd:npm test" });
  assert.equal(r.text, `decision=${JSON.stringify({ acceptWithExecpolicyAmendment: { execpolicy_amendment: ["npm", "test"] } })}`);
  await finish(h, marker);
});

for (const [what, answer] of [
  ["the host cancels", { result: { cancelled: true } }],
  ["the host answers with an error", { error: { code: -1, message: "no" } }],
  ["the host selects an unknown option", { result: { selected: "yes-please" } }],
  ["the host answers nonsense", { result: { maybe: 1 } }],
] as const) {
  test(`R-PERM-1: fail-closed → decline when ${what}`, async () => {
    const { h, marker } = setup(undefined, () => answer as PermissionAnswer);
    const sid = await h.open(fakeSpec(marker));
    const r = await h.ok("session/prompt", { sessionId: sid, text: "cmd:rm -rf x" });
    assert.equal(r.text, 'decision="decline"');
    const res = h.events(sid).find((e) => e.type === "permissionResolved") as any;
    assert.equal(res.outcome, "cancelled");
    assert.equal((h.events(sid).find((e) => e.type === "toolCallUpdate") as any).status, "failed");
    await finish(h, marker);
  });
}

test("R-PERM-1: --permission-timeout elapses → decline", async () => {
  const { h, marker } = setup(["--permission-timeout", "300"]);
  const sid = await h.open(fakeSpec(marker));
  const r = await h.ok("session/prompt", { sessionId: sid, text: "cmd:rm -rf x" });
  assert.equal(r.text, 'decision="decline"');
  await finish(h, marker);
});

test("R-PERM-1: file change approval carries the item's diff; preset acceptEdits allows it without the host", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker), { options: { permission: "acceptEdits" } });
  const r = await h.ok("session/prompt", { sessionId: sid, text: "file:hello.txt" });
  assert.equal(r.text, 'decision="accept"');
  assert.equal(h.permissionRequests().length, 0);
  const evs = h.events(sid);
  const call = evs.find((e) => e.type === "toolCall") as any;
  assert.equal(call.kind, "edit");
  assert.match(call.title, /^Edit .*hello\.txt$/);
  assert.match(call.locations[0].path, /hello\.txt$/);
  assert.deepEqual(evs.find((e) => e.type === "permissionResolved"), { type: "permissionResolved", toolCallId: call.toolCallId, outcome: "selected", optionId: "accept", decidedBy: "policy" });
  await finish(h, marker);
});

test("R-PERM-1: file change approval relayed under `ask` with the diff as content; default options", async () => {
  const { h, marker } = setup(undefined, () => ({ result: { selected: "decline" } }));
  const sid = await h.open(fakeSpec(marker));
  const r = await h.ok("session/prompt", { sessionId: sid, text: "file:a.txt" });
  assert.equal(r.text, 'decision="decline"');
  const [req] = h.permissionRequests();
  assert.equal(req.kind, "edit");
  assert.match(req.contentTexts[0], /^add .*a\.txt\nhello\n$/);
  assert.deepEqual(req.options.map((o: any) => o.optionId), ["accept", "acceptForSession", "decline"]);
  await finish(h, marker);
});

test("R-PERM-1: preset readOnly rejects a command with `decline`, never `cancel`", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker), { options: { permission: "readOnly" } });
  const r = await h.ok("session/prompt", { sessionId: sid, text: "cmd:touch y" });
  assert.equal(r.text, 'decision="decline"');
  assert.equal(h.permissionRequests().length, 0);
  await finish(h, marker);
});

test("R-PERM-1: an approval Codex resolves itself is withdrawn from the host (permissionResolved cancelled)", async () => {
  // The host never answers: only Codex's serverRequest/resolved can end the request.
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  const r = await h.ok("session/prompt", { sessionId: sid, text: "self-resolve;text:done" });
  assert.equal(r.text, "done");
  const [req] = h.permissionRequests();
  const evs = h.events(sid);
  const resolved = evs.findIndex((e) => e.type === "permissionResolved");
  assert.deepEqual(evs[resolved], { type: "permissionResolved", toolCallId: req.toolCallId, outcome: "cancelled", decidedBy: "policy" });
  assert.ok(resolved < evs.findIndex((e) => e.type === "messageChunk"), "withdrawn while the turn went on, not at its end");
  await finish(h, marker);
});

// Issue 30 N6: no preset approves what no running turn asked for.
for (const [preset, kind] of [
  ["bypass", "cmd"],
  ["acceptEdits", "file"],
] as const) {
  test(`R-PERM-1: an approval asked after the turn completed is declined under ${preset}, and the host is not asked`, async () => {
    const { h, marker } = setup(undefined, () => ({ result: { selected: "accept" } }));
    const sid = await h.open(fakeSpec(marker), { options: { permission: preset } });
    assert.equal((await h.ok("session/prompt", { sessionId: sid, text: `late-approval:${kind};text:done` })).text, "done");
    await h.waitFor(() => h.events(sid).some((e) => e.type === "permissionResolved"), 10_000, "the late approval's decision");
    assert.deepEqual(
      h.events(sid).filter((e) => e.type === "permissionResolved").map((e: any) => [e.outcome, e.decidedBy]),
      [["cancelled", "policy"]],
    );
    assert.equal((await h.ok("session/prompt", { sessionId: sid, text: "late-decision" })).text, 'late="decline"');
    assert.equal(h.permissionRequests().length, 0);
    await finish(h, marker);
  });

  test(`R-PERM-1: an approval asked after session/cancel is declined under ${preset}`, async () => {
    const { h, marker } = setup(undefined, () => ({ result: { selected: "accept" } }));
    const sid = await h.open(fakeSpec(marker), { options: { permission: preset } });
    const p = prompt(h, sid, `interrupt-then-approval:${kind}`);
    const said = () => h.events(sid).map((e: any) => (e.type === "messageChunk" ? e.text : "")).join("");
    await h.waitFor(() => said().includes("waiting"), 10_000, "the turn to start");
    await h.ok("session/cancel", { sessionId: sid });
    const r = await p;
    assert.equal(r.result?.stopReason, "cancelled", JSON.stringify(r));
    assert.match(r.result.text, /decision="decline"/);
    assert.equal(h.permissionRequests().length, 0);
    await finish(h, marker);
  });
}
