// Permission relay and presets through a real sidecar (R-PERM-1).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TestSidecar, fakeAgentSpec, newMarker, killMarked, type PermissionAnswer } from "../helpers/sidecar.js";

const started: TestSidecar[] = [];
const markers: string[] = [];
after(() => {
  for (const s of started) s.kill();
  for (const m of markers) killMarked(m);
});
function setup(onPermission?: (p: any) => PermissionAnswer | Promise<PermissionAnswer>, args: string[] = []) {
  const s = new TestSidecar({ args, onPermission });
  started.push(s);
  const marker = newMarker();
  markers.push(marker);
  return { s, marker };
}
const resolved = (s: TestSidecar, sid: string) => s.events(sid).filter((e) => e.type === "permissionResolved");

test("the host's choice reaches the agent; the request carries the tool call's kind, title and content", async () => {
  let seen: any;
  const { s, marker } = setup((p) => {
    seen = p;
    return { result: { selected: "yes" } };
  });
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.ok("session/prompt", { sessionId: sid, text: "permission" });
  assert.equal(r.text, "outcome:selected:yes");
  assert.equal(seen.sessionId, sid);
  assert.equal(seen.kind, "execute", "taken from the earlier tool_call when the request has none");
  assert.equal(seen.title, "Do the thing");
  assert.deepEqual(seen.contentTexts, ["rm -rf build"]);
  assert.deepEqual(seen.options.map((o: any) => o.kind), ["allowOnce", "allowAlways", "rejectOnce"]);
  assert.equal(seen.raw.toolCall.toolCallId, "tc-1");
  assert.deepEqual(resolved(s, sid), [{ type: "permissionResolved", toolCallId: "tc-1", outcome: "selected", optionId: "yes", decidedBy: "host" }]);
  assert.equal(await s.end(), 0);
});

for (const [name, answer] of [
  ["an error response", { error: { code: -1, message: "no" } }],
  ["a malformed result", { result: { selected: 1 } }],
  ["an unknown option id", { result: { selected: "sure" } }],
  ["an explicit cancel", { result: { cancelled: true } }],
] as const) {
  test(`R-PERM-1: ${name} makes the agent see cancelled`, async () => {
    const { s, marker } = setup(() => answer as PermissionAnswer);
    const sid = await s.open(fakeAgentSpec(marker));
    const r = await s.ok("session/prompt", { sessionId: sid, text: "permission" });
    assert.equal(r.text, "outcome:cancelled");
    assert.equal(resolved(s, sid)[0].type, "permissionResolved");
    assert.equal((resolved(s, sid)[0] as any).outcome, "cancelled");
    assert.equal(await s.end(), 0);
  });
}

test("R-PERM-1: --permission-timeout answers cancelled when the host stays silent", async () => {
  const { s, marker } = setup(() => "ignore", ["--permission-timeout", "200"]);
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.ok("session/prompt", { sessionId: sid, text: "permission" });
  assert.equal(r.text, "outcome:cancelled");
  assert.equal((resolved(s, sid)[0] as any).decidedBy, "policy");
  assert.equal(await s.end(), 0);
});

test("R-PERM-1: cancelling the turn answers a pending permission cancelled; a late host answer is ignored", async () => {
  let later: (() => void) | undefined;
  const { s, marker } = setup(() => new Promise((resolve) => (later = () => resolve({ result: { selected: "yes" } }))));
  const sid = await s.open(fakeAgentSpec(marker));
  const p = s.call("session/prompt", { sessionId: sid, text: "permission" });
  await s.waitFor(() => s.received.some((m) => m.method === "permission/request"));
  await s.ok("session/cancel", { sessionId: sid });
  const r = await p;
  assert.equal(r.result.stopReason, "cancelled");
  assert.equal(r.result.text, "outcome:cancelled");
  later!();
  await s.ok("ping");
  assert.equal(await s.end(), 0);
});

test("R-PERM-1: closing the session answers a pending permission cancelled", async () => {
  const { s, marker } = setup(() => "ignore");
  const sid = await s.open(fakeAgentSpec(marker));
  const p = s.call("session/prompt", { sessionId: sid, text: "permission" });
  await s.waitFor(() => s.received.some((m) => m.method === "permission/request"));
  await s.ok("session/close", { sessionId: sid });
  const r = await p;
  assert.equal(r.result?.stopReason ?? r.error?.data.code, "cancelled");
  assert.ok(resolved(s, sid).some((e: any) => e.outcome === "cancelled"));
  assert.equal(await s.end(), 0);
});

for (const [preset, kind, expected, asked] of [
  ["readOnly", "execute", "outcome:selected:no", false],
  ["readOnly", "read", "outcome:selected:yes", false],
  ["acceptEdits", "edit", "outcome:selected:yes", false],
  ["acceptEdits", "execute", "outcome:selected:always", true],
  ["bypass", "execute", "outcome:selected:yes", false],
  ["ask", "read", "outcome:selected:always", true],
] as const) {
  test(`preset ${preset} with a ${kind} tool: ${asked ? "asks the host" : "decides alone, never an always option"}`, async () => {
    let count = 0;
    const { s, marker } = setup(() => {
      count++;
      return { result: { selected: "always" } };
    });
    const sid = await s.open(fakeAgentSpec(marker), { options: { permission: preset } });
    const r = await s.ok("session/prompt", { sessionId: sid, text: `permission:${kind}` });
    assert.equal(r.text, expected);
    assert.equal(count, asked ? 1 : 0);
    assert.equal((resolved(s, sid)[0] as any).decidedBy, asked ? "host" : "policy");
    assert.equal(await s.end(), 0);
  });
}

test("a permission request (and update) for a tool call the agent never announced comes after its toolCall", async () => {
  const { s, marker } = setup(() => ({ result: { selected: "yes" } }));
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.ok("session/prompt", { sessionId: sid, text: "unannounced-permission" });
  assert.equal(r.text, "outcome:selected:yes");
  // The wire order: the session/event notifications and the permission/request, as received.
  const order = s.received
    .filter((m: any) => m.method === "permission/request" || (m.method === "session/event" && m.params?.sessionId === sid))
    .map((m: any) => (m.method === "permission/request" ? `request:${m.params.toolCallId}` : `${m.params.event.type}:${m.params.event.toolCallId ?? ""}`))
    .filter((x: string) => !x.startsWith("messageChunk") && !x.startsWith("stderr"));
  assert.deepEqual(order, ["toolCall:tc-9", "request:tc-9", "permissionResolved:tc-9", "toolCallUpdate:tc-9"]);
  const announced = s.events(sid).find((e) => e.type === "toolCall") as any;
  assert.deepEqual(announced, { type: "toolCall", toolCallId: "tc-9", title: "Shell: ls", kind: "execute", status: "pending" });
  assert.equal(await s.end(), 0);
});

// Issue 30 N6: no preset approves what no running turn asked for.
for (const preset of ["bypass", "acceptEdits"] as const) {
  test(`R-PERM-1: a permission asked outside a turn is cancelled under ${preset}, and the host is not asked`, async () => {
    let count = 0;
    const { s, marker } = setup(() => {
      count++;
      return { result: { selected: "yes" } };
    });
    const sid = await s.open(fakeAgentSpec(marker), { options: { permission: preset } });
    const r = await s.ok("session/prompt", { sessionId: sid, text: "late-permission:edit" });
    assert.equal(r.stopReason, "endTurn");
    await s.waitFor(() => s.events(sid).some((e: any) => e.type === "messageChunk" && e.text.startsWith("late ")), 10_000, "the late outcome");
    assert.ok(s.events(sid).some((e: any) => e.type === "messageChunk" && e.text === "late outcome:cancelled"));
    assert.deepEqual(resolved(s, sid), [{ type: "permissionResolved", toolCallId: "tc-1", outcome: "cancelled", decidedBy: "policy" }]);
    assert.equal(count, 0);
    assert.equal(await s.end(), 0);
  });

  test(`R-PERM-1: a permission asked after session/cancel is cancelled under ${preset}`, async () => {
    const { s, marker } = setup(() => ({ result: { selected: "yes" } }));
    const sid = await s.open(fakeAgentSpec(marker), { options: { permission: preset } });
    const p = s.call("session/prompt", { sessionId: sid, text: "cancel-then-permission:edit" });
    await s.waitFor(() => s.events(sid).some((e: any) => e.type === "messageChunk" && e.text === "waiting"), 10_000, "the turn to start");
    await s.ok("session/cancel", { sessionId: sid });
    const r = await p;
    assert.equal(r.result.stopReason, "cancelled");
    assert.equal(r.result.text, "waiting\n\noutcome:cancelled");
    assert.deepEqual(resolved(s, sid), [{ type: "permissionResolved", toolCallId: "tc-1", outcome: "cancelled", decidedBy: "policy" }]);
    assert.equal(await s.end(), 0);
  });
}
