// §15 session views without sockets: catch-up ordering, permission fan-out, history_truncated,
// operationId memory.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent, PermissionRequest } from "../../../generated/ts/types.js";
import { Journal } from "../../../src/journal/journal.js";
import { A4aaError } from "../../../src/errors.js";
import { Attachments, type Viewer } from "../../../src/sessions/attachments.js";
import { SessionViews } from "../../../src/sessions/views.js";
import type { Session } from "../../../src/sessions/session.js";
import { Operations } from "../../../src/server/operations.js";
import { FlowGate } from "../../../src/transport/ndjson-writer.js";
import { createLogger } from "../../../src/log.js";

function viewer(name: string, answer?: (r: PermissionRequest) => Promise<unknown>) {
  const seen: number[] = [];
  const settled: unknown[] = [];
  const asked: PermissionRequest[] = [];
  const v: Viewer = {
    tenant: "",
    name,
    event: (_s, _e, seq) => seen.push(seq),
    requestPermission: (r, signal) => {
      asked.push(r);
      return answer ? answer(r) : new Promise((_res, rej) => signal.addEventListener("abort", () => rej(signal.reason)));
    },
    permissionSettled: (p) => settled.push(p),
  };
  return { v, seen, settled, asked };
}

const chunk = (text: string): AgentEvent => ({ type: "messageChunk", text });
const request: PermissionRequest = {
  sessionId: "s",
  toolCallId: "tc",
  title: "t",
  kind: "execute",
  contentTexts: [],
  options: [
    { optionId: "yes", name: "Yes", kind: "allowOnce" },
    { optionId: "no", name: "No", kind: "rejectOnce" },
  ],
  raw: null,
};

test("R-REMOTE-4: events while a connection catches up wait in the journal: replay then live, each once, in order", () => {
  const j = new Journal();
  const att = new Attachments({ sessionId: "s", gate: new FlowGate() });
  const send = (t: string) => att.event("s", chunk(t), j.append(chunk(t)));
  send("1");
  send("2");
  const late = viewer("late");
  const { finish } = att.attachCatchingUp(late.v, j, 1);
  send("3"); // before the attach answer went out: not sent live
  assert.deepEqual(late.seen, []);
  finish();
  send("4");
  assert.deepEqual(late.seen, [2, 3, 4]);
});

test("R-REMOTE-5: a permission request goes to every attached connection; the first valid answer decides, invalid ones do not, the others hear settled", async () => {
  const att = new Attachments({ sessionId: "s", gate: new FlowGate() });
  const a = viewer("a");
  const bad = viewer("bad", async () => ({ selected: "nope" }));
  const b = viewer("b", () => new Promise((r) => setTimeout(() => r({ selected: "no" }), 10)));
  att.attach(a.v);
  att.attach(bad.v);
  att.attach(b.v);
  const answer = await att.requestPermission(request, new AbortController().signal);
  assert.deepEqual(answer, { selected: "no" });
  assert.equal(a.asked.length, 1);
  assert.deepEqual(a.settled, [{ sessionId: "s", toolCallId: "tc", outcome: "selected", optionId: "no", decidedBy: "host" }]);
  assert.deepEqual(b.settled, []);
});

test("R-REMOTE-3: with no connection attached a permission request waits for one, and is sent to it when it attaches", async () => {
  const att = new Attachments({ sessionId: "s", gate: new FlowGate() });
  const j = new Journal();
  const pending = att.requestPermission(request, new AbortController().signal);
  const b = viewer("b", async () => ({ cancelled: true }));
  att.attachCatchingUp(b.v, j, 0).finish();
  assert.deepEqual(await pending, { cancelled: true });
  // Aborting (the turn ended, --permission-timeout) fails it; those asked see permissionResolved, not settled.
  const a = viewer("a");
  att.attach(a.v);
  const c = new AbortController();
  const p2 = att.requestPermission(request, c.signal);
  c.abort(new Error("timeout"));
  await assert.rejects(p2, /timeout/);
  assert.deepEqual(a.settled, [], "no settled when no connection decided: the permissionResolved event says it");
});

test("R-REMOTE-4: attaching with an afterSeq older than the journal holds fails history_truncated and attaches nothing", () => {
  const j = new Journal({ maxEvents: 3, maxBytes: 1 << 20 });
  for (let i = 0; i < 10; i++) j.append(chunk(String(i)));
  const att = new Attachments({ sessionId: "s", gate: new FlowGate() });
  const views = new SessionViews({ logger: createLogger("error"), closeAbandoned: async () => undefined });
  const session = { state: "idle", journal: j } as unknown as Session;
  const view = { id: "s", tenant: "", agent: "x", cwd: "/", session, attachments: att };
  views.add(view);
  const v = viewer("v");
  assert.throws(() => views.attach(view, j, v.v, 5), (e: A4aaError) => e.code === "history_truncated" && /starts at seq 8/.test(e.message));
  assert.equal(att.count, 0);
  const { result, finish } = views.attach(view, j, v.v, 7);
  assert.deepEqual(result, { sessionId: "s", lastSeq: 10, state: "idle", attached: 1 });
  finish();
  assert.deepEqual(v.seen, [8, 9, 10]);
  views.remove("s");
});

test("R-REMOTE-6: operationId memory is per tenant, compares params, and forgets after 10 minutes", async () => {
  let now = 0;
  const ops = new Operations(600_000, () => now);
  let runs = 0;
  const run = async () => ++runs;
  assert.equal(await ops.run("t", "op", "session/prompt", { sessionId: "s", text: "a", operationId: "op" }, "prompt", run), 1);
  assert.equal(await ops.run("t", "op", "session/prompt", { text: "a", sessionId: "s", operationId: "op" }, "prompt", run), 1, "key order does not matter");
  assert.equal(await ops.run("other", "op", "session/prompt", { sessionId: "s", text: "a" }, "prompt", run), 2, "another tenant");
  await assert.rejects(ops.run("t", "op", "session/prompt", { sessionId: "s", text: "b" }, "prompt", run), (e: A4aaError) => e.code === "operation_conflict");
  await assert.rejects(ops.run("t", "op", "session/open", { sessionId: "s", text: "a" }, "open", run), (e: A4aaError) => e.code === "operation_conflict");
  now += 600_001;
  assert.equal(await ops.run("t", "op", "session/prompt", { sessionId: "s", text: "b" }, "prompt", run), 3, "forgotten after 10 minutes");
});

test("R-REMOTE-3: a connection that is gone is never attached nor asked: the permission waits for a live one", async () => {
  const att = new Attachments({ sessionId: "s", gate: new FlowGate() });
  const j = new Journal();
  const counts: number[] = [];
  const watched = new Attachments({ sessionId: "s2", gate: new FlowGate(), onAttachedChange: (n) => counts.push(n) });
  // A closed connection's requests fail at once: asked, it would fail the request closed.
  const dead = viewer("dead", async () => {
    throw new Error("Peer closed: the host connection ended");
  });
  const gone: Viewer = { ...dead.v, gone: true };
  const pending = att.requestPermission(request, new AbortController().signal);
  att.attachCatchingUp(gone, j, 0).finish();
  att.attach(gone);
  assert.equal(att.count, 0);
  assert.equal(dead.asked.length, 0, "the gone connection was asked");
  watched.attach(gone);
  assert.deepEqual(counts, [0], "a session opened by a gone connection starts out detached (its --detach-ttl runs)");
  const live = viewer("live", async () => ({ selected: "yes" }));
  att.attachCatchingUp(live.v, j, 0).finish();
  assert.deepEqual(await pending, { selected: "yes" });
});
