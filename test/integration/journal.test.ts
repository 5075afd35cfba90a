// R-SEQ-1 and session/history end to end: a real `a4aa serve` and the fake ACP agent.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TestSidecar, sidecarSetup, fakeAgentSpec, waitNoProcesses } from "../helpers/sidecar.js";

const sidecars = sidecarSetup();
const setup = () => sidecars({ onPermission: () => ({ result: { selected: "yes" } }) });

function seqs(s: TestSidecar, sid: string): number[] {
  return s.received.filter((m) => m.method === "session/event" && m.params.sessionId === sid).map((m) => m.params.seq);
}

test("R-SEQ-1: every session/event carries seq, per session from 1, no gaps, in sending order", async () => {
  const { s, marker } = setup();
  const [a, b] = await Promise.all([s.open(fakeAgentSpec(marker, ["--early-updates"])), s.open(fakeAgentSpec(marker))]);
  await Promise.all([
    s.ok("session/prompt", { sessionId: a, text: "text:one;permission;text:two;usage" }),
    s.ok("session/prompt", { sessionId: b, text: "flood:300:10" }),
  ]);
  for (const sid of [a, b]) {
    const got = seqs(s, sid);
    assert.ok(got.length > 2, `events of ${sid}`);
    assert.deepEqual(got, got.map((_, i) => i + 1), `seq of ${sid} counts from 1 without gaps`);
  }
  const h = await s.ok("session/history", { sessionId: a });
  assert.equal(h.firstSeq, 1);
  assert.equal(h.lastSeq, seqs(s, a).length);
  const sent = s.received.filter((m) => m.method === "session/event" && m.params.sessionId === a).map((m) => ({ seq: m.params.seq, event: m.params.event }));
  assert.deepEqual(h.events, sent, "history holds exactly what was sent");
  const tail = await s.ok("session/history", { sessionId: a, afterSeq: 2, limit: 1 });
  assert.deepEqual(tail.events.map((e: any) => e.seq), [3]);
  assert.equal(s.received.filter((m) => m.method === "session/event" && !Number.isInteger(m.params.seq)).length, 0);
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-SEQ-1: session/history after 20,000 events keeps the last 10,000 and says firstSeq", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  await s.ok("session/prompt", { sessionId: sid, text: "flood:20000:8" });
  const last = Math.max(...seqs(s, sid));
  assert.ok(last >= 20_000);
  const h = await s.ok("session/history", { sessionId: sid });
  assert.equal(h.lastSeq, last);
  assert.equal(h.firstSeq, last - 10_000 + 1, "the bound: the last 10,000 events");
  assert.equal(h.events.length, 10_000);
  assert.equal(h.events[0].seq, h.firstSeq);
  assert.equal(h.events.at(-1).seq, last);
  const old = await s.ok("session/history", { sessionId: sid, afterSeq: 5 });
  assert.equal(old.events[0].seq, h.firstSeq, "asking for dropped events starts at firstSeq");
  const bad = await s.call("session/history", { sessionId: sid, limit: 0 });
  assert.equal(bad.error?.data?.code, "invalid_params");
  const unknown = await s.call("session/history", { sessionId: "nope" });
  assert.equal(unknown.error?.data?.code, "unknown_session");
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});
