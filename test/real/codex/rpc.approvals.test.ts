// The real `codex app-server` through a4aa serve: approvals relayed as permission/request
// (accepted, declined, host silent until the timeout or the cancel), a file change under
// `ask` and under `acceptEdits`, and what the presets make Codex do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { applyPatch, finish, reply, skip, startCodex } from "../helpers/codex-rpc.js";

const shellTurn = (cmd: string, after: string) => [reply.shell(cmd), reply.text(after)];

test("R-PERM-1: a command that needs approval, accepted once by the host: it runs", { skip }, async () => {
  const r = await startCodex(shellTurn("touch approved.txt", "done"), { onPermission: () => ({ result: { selected: "accept" } }) });
  const sid = await r.open();
  const out = await r.h.ok("session/prompt", { sessionId: sid, text: "make a file" });
  assert.equal(out.stopReason, "endTurn");
  assert.equal(out.text, "done");
  assert.ok(existsSync(path.join(r.run.cwd, "approved.txt")), "the command ran");
  const [req] = r.h.permissionRequests();
  assert.equal(req.kind, "execute");
  assert.match(req.title, /touch approved\.txt/);
  // What Codex 0.171 offers under `untrusted`: accept, an exec-policy amendment, cancel; a4aa
  // adds decline before cancel (issue 14: the first reject option lets the turn go on).
  assert.deepEqual(
    req.options.map((o: any) => [o.optionId, o.kind]),
    [
      ["accept", "allowOnce"],
      ["acceptWithExecpolicyAmendment", "allowAlways"],
      ["decline", "rejectOnce"],
      ["cancel", "rejectOnce"],
    ],
  );
  const evs = r.h.events(sid);
  const call = evs.find((e) => e.type === "toolCall") as any;
  assert.deepEqual([call.kind, call.toolCallId], ["execute", req.toolCallId]);
  assert.equal((evs.find((e) => e.type === "toolCallUpdate") as any).status, "completed");
  assert.deepEqual(evs.find((e) => e.type === "permissionResolved"), { type: "permissionResolved", toolCallId: req.toolCallId, outcome: "selected", optionId: "accept", decidedBy: "host" });
  await finish(r);
});

test("R-PERM-1: declined once (the host cancels the request → decline): nothing runs, the turn goes on", { skip }, async () => {
  const r = await startCodex(shellTurn("touch declined.txt", "ok, I will not"), { onPermission: () => ({ result: { cancelled: true } }) });
  const sid = await r.open();
  const out = await r.h.ok("session/prompt", { sessionId: sid, text: "make a file" });
  assert.equal(out.stopReason, "endTurn");
  assert.equal(out.text, "ok, I will not");
  assert.ok(!existsSync(path.join(r.run.cwd, "declined.txt")), "the command did not run");
  assert.equal((r.h.events(sid).find((e) => e.type === "toolCallUpdate") as any).status, "failed");
  // The model was told the command was declined.
  const follow = r.mock.mainRequests()[1].body.input.find((i: any) => i.type === "function_call_output");
  assert.ok(follow, "the model got the tool's outcome");
  await finish(r);
});

test("issue 14: a host that picks the first rejectOnce option declines the command and the turn goes on", { skip }, async () => {
  const r = await startCodex(shellTurn("touch rejected.txt", "fine, not running it"), {
    onPermission: (p: any) => ({ result: { selected: p.options.find((o: any) => o.kind === "rejectOnce").optionId } }),
  });
  const sid = await r.open();
  const out = await r.h.ok("session/prompt", { sessionId: sid, text: "make a file" });
  assert.equal(out.stopReason, "endTurn");
  assert.equal(out.text, "fine, not running it");
  assert.ok(!existsSync(path.join(r.run.cwd, "rejected.txt")), "the command did not run");
  assert.deepEqual(
    r.h.events(sid).find((e) => e.type === "permissionResolved"),
    { type: "permissionResolved", toolCallId: r.h.permissionRequests()[0].toolCallId, outcome: "selected", optionId: "decline", decidedBy: "host" },
  );
  await finish(r);
});

test("R-PERM-1: the host picks Codex's `cancel`: declined and the turn interrupted", { skip }, async () => {
  const r = await startCodex(shellTurn("touch never.txt", "unreachable"), { onPermission: () => ({ result: { selected: "cancel" } }) });
  const sid = await r.open();
  const out = await r.h.ok("session/prompt", { sessionId: sid, text: "make a file" });
  assert.equal(out.stopReason, "cancelled");
  assert.ok(!existsSync(path.join(r.run.cwd, "never.txt")));
  await finish(r);
});

test("R-PERM-1: the host never answers: declined when --permission-timeout elapses", { skip }, async () => {
  const r = await startCodex(shellTurn("touch late.txt", "gave up"), { args: ["--permission-timeout", "1500"] });
  const sid = await r.open();
  const out = await r.h.ok("session/prompt", { sessionId: sid, text: "make a file" });
  assert.equal(out.text, "gave up");
  assert.ok(!existsSync(path.join(r.run.cwd, "late.txt")));
  assert.equal(r.h.permissionRequests().length, 1);
  const res = r.h.events(sid).find((e) => e.type === "permissionResolved") as any;
  assert.deepEqual([res.outcome, res.decidedBy], ["cancelled", "policy"]);
  await finish(r);
});

test("R-PERM-1 R-CANCEL-1: the host never answers and cancels the turn: declined, cancelled, Codex clears the request", { skip }, async () => {
  const r = await startCodex(shellTurn("touch cancelled.txt", "unreachable"));
  const sid = await r.open();
  const p = r.h.call("session/prompt", { sessionId: sid, text: "make a file" });
  await r.h.waitFor(() => r.h.permissionRequests().length === 1, 30_000, "the permission request");
  await r.h.ok("session/cancel", { sessionId: sid });
  const out = await p;
  assert.equal(out.result?.stopReason, "cancelled");
  assert.ok(!existsSync(path.join(r.run.cwd, "cancelled.txt")));
  const res = r.h.events(sid).find((e) => e.type === "permissionResolved") as any;
  assert.equal(res.outcome, "cancelled");
  await finish(r);
});

const PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello from a patch\n*** End Patch\n";

test("R-PERM-1: a file change under `ask`: relayed with its diff, accepted, written", { skip }, async () => {
  const r = await startCodex([applyPatch(PATCH), reply.text("patched")], { onPermission: () => ({ result: { selected: "accept" } }) });
  const sid = await r.open();
  const out = await r.h.ok("session/prompt", { sessionId: sid, text: "write hello.txt" });
  assert.equal(out.text, "patched");
  assert.equal(readFileSync(path.join(r.run.cwd, "hello.txt"), "utf8"), "hello from a patch\n");
  const [req] = r.h.permissionRequests();
  assert.equal(req.kind, "edit");
  assert.match(req.title, /^Edit .*hello\.txt$/);
  assert.match(req.contentTexts[0], /hello from a patch/);
  const call = r.h.events(sid).find((e) => e.type === "toolCall") as any;
  assert.equal(call.kind, "edit");
  assert.match(call.locations[0].path, /hello\.txt$/);
  assert.equal((r.h.events(sid).find((e) => e.type === "toolCallUpdate") as any).status, "completed");
  await finish(r);
});

test("preset acceptEdits (on-request, workspace-write): an edit in the workspace needs no approval", { skip }, async () => {
  const r = await startCodex([applyPatch(PATCH), reply.text("patched")]);
  const sid = await r.open({ options: { permission: "acceptEdits" } });
  assert.equal((await r.h.ok("session/prompt", { sessionId: sid, text: "write hello.txt" })).text, "patched");
  assert.ok(existsSync(path.join(r.run.cwd, "hello.txt")));
  assert.equal(r.h.permissionRequests().length, 0);
  await finish(r);
});

test("preset readOnly (never ask, read-only sandbox): nothing is asked and nothing is written", { skip }, async () => {
  const r = await startCodex([applyPatch(PATCH), reply.text("could not")]);
  const sid = await r.open({ options: { permission: "readOnly" } });
  assert.equal((await r.h.ok("session/prompt", { sessionId: sid, text: "write hello.txt" })).text, "could not");
  assert.ok(!existsSync(path.join(r.run.cwd, "hello.txt")));
  assert.equal(r.h.permissionRequests().length, 0);
  await finish(r);
});
