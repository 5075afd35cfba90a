// The rpc lane with `share` (§13) against the fake app-server: many threads on one
// process, each session's notifications, approvals, interrupts and close its own
// (R-SHARE-1); a crash fails them all (R-SHARE-2); agents/prewarm.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { RpcAgentSpec } from "../../../generated/ts/types.js";
import { fakeSpec, processesWithMarker, type PermissionAnswer } from "../../fixtures/rpc/host.js";
import { cleanupAfterAll, finish, prompt, setup } from "./setup.js";

cleanupAfterAll();

const shared = (marker: string, share: Record<string, unknown> = {}): RpcAgentSpec => ({ ...fakeSpec(marker), share }) as RpcAgentSpec;
const pidOf = (text: string) => /pid (\d+)/.exec(text)?.[1];

test("R-SHARE-1: 4 codex threads on one app-server stream at once; each session gets only its own deltas, and its own approval answer", async () => {
  const answers = new Map<string, string>();
  const { h, marker } = setup(undefined, (p): PermissionAnswer => ({ result: { selected: answers.get(p.sessionId)! } }));
  const opened = await Promise.all(Array.from({ length: 4 }, () => h.ok("session/open", { spec: shared(marker) })));
  assert.ok(opened.every((o) => o.shared === true));
  assert.equal(new Set(opened.map((o) => o.nativeSessionId)).size, 4, "four threads");
  assert.equal(processesWithMarker(marker).length, 1, "one app-server for four sessions");
  const ids: string[] = opened.map((o) => o.sessionId);
  ids.forEach((sid, i) => answers.set(sid, i % 2 ? "decline" : "accept"));
  const outs = await Promise.all(ids.map((sid, i) => h.ok("session/prompt", { sessionId: sid, text: `slow:4:20;text:<T${i}>;cmd:touch ${i};pids` })));
  const pids = new Set<string | undefined>();
  outs.forEach((o, i) => {
    assert.match(o.text, new RegExp(`^tick 0 tick 1 tick 2 tick 3 \\n\\n<T${i}>`), o.text);
    assert.equal((o.text.match(/<T\d>/g) ?? []).join(), `<T${i}>`, `session ${i} got another thread's text: ${o.text}`);
    assert.match(o.text, new RegExp(`decision="${i % 2 ? "decline" : "accept"}"`));
    pids.add(pidOf(o.text));
  });
  assert.equal(pids.size, 1);
  for (const sid of ids) assert.equal(h.permissionRequests().filter((p) => p.sessionId === sid).length, 1);
  await finish(h, marker);
});

test("R-SHARE-1: cancel of one of 3 concurrent codex turns interrupts only that thread's turn", async () => {
  const { h, marker } = setup();
  const ids = await Promise.all(Array.from({ length: 3 }, () => h.open(shared(marker))));
  const turns = ids.map((sid) => prompt(h, sid, "slow:30:30"));
  await h.waitFor(() => ids.every((sid) => h.events(sid).some((e: any) => e.type === "messageChunk" && e.text === "tick 2 ")), 10_000, "three turns to stream");
  await h.ok("session/cancel", { sessionId: ids[0] });
  const rs = await Promise.all(turns);
  assert.equal(rs[0].result?.stopReason, "cancelled");
  for (const r of rs.slice(1)) {
    assert.equal(r.result?.stopReason, "endTurn", JSON.stringify(r.error ?? r.result));
    assert.match(r.result.text, /tick 29 $/);
  }
  await finish(h, marker);
});

test("R-SHARE-1: closing a session unsubscribes its thread; the other thread goes on", async () => {
  const { h, marker } = setup();
  const a = await h.ok("session/open", { spec: shared(marker) });
  const b = await h.ok("session/open", { spec: shared(marker) });
  assert.equal((await h.ok("session/prompt", { sessionId: b.sessionId, text: "threads" })).text, `threads ${a.nativeSessionId},${b.nativeSessionId}`);
  assert.deepEqual((await h.ok("session/close", { sessionId: a.sessionId })).processes, { ended: 0, killed: 0 });
  assert.equal((await h.ok("session/prompt", { sessionId: b.sessionId, text: "threads" })).text, `threads ${b.nativeSessionId}`);
  await finish(h, marker);
});

test("R-SHARE-2: a crash of the shared app-server fails every thread's turn with agent_exited; the next open starts a fresh one", async () => {
  const { h, marker } = setup();
  const ids = await Promise.all(Array.from({ length: 3 }, () => h.open(shared(marker))));
  const first = pidOf((await h.ok("session/prompt", { sessionId: ids[0], text: "pids" })).text);
  const slow = ids.slice(1).map((sid) => prompt(h, sid, "slow:200"));
  await h.waitFor(() => ids.slice(1).every((sid) => h.events(sid).some((e: any) => e.type === "messageChunk" && e.text === "tick 1 ")), 10_000, "two turns to stream");
  const crash = await prompt(h, ids[0], "crash");
  assert.equal(crash.error?.data?.code, "agent_exited");
  for (const r of await Promise.all(slow)) assert.equal(r.error?.data?.code, "agent_exited", JSON.stringify(r.error ?? r.result));
  const fresh = await h.open(shared(marker));
  const second = pidOf((await h.ok("session/prompt", { sessionId: fresh, text: "pids" })).text);
  assert.ok(first && second && first !== second);
  await finish(h, marker);
});

test("agents/prewarm on the rpc lane: initialized app-servers; the next opens only start threads", async () => {
  const { h, marker } = setup();
  const spec = shared(marker, { maxSessions: 2 });
  assert.deepEqual(await h.ok("agents/prewarm", { spec, count: 1 }), { processes: 1, started: 1 });
  const warm = processesWithMarker(marker);
  const [a, b] = await Promise.all([h.open(spec), h.open(spec)]);
  assert.deepEqual(processesWithMarker(marker), warm, "the opens started a process");
  const texts = await Promise.all([a, b].map(async (sid) => (await h.ok("session/prompt", { sessionId: sid, text: "handshake" })).text));
  // The prewarmed process was initialized once; each session started its own thread on it.
  const methods = JSON.parse(texts[1]).map((m: { method: string }) => m.method);
  assert.deepEqual(methods, ["initialize", "initialized", "thread/start", "thread/start"]);
  await finish(h, marker);
});
