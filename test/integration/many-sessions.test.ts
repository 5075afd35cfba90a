// 200 concurrent sessions on the fake agent: each prompted once and closed, every
// event delivered in order, no process left.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TestSidecar, fakeAgentSpec, newMarker, waitNoProcesses, killMarked } from "../helpers/sidecar.js";

const marker = newMarker();
const s = new TestSidecar();
after(() => {
  s.kill();
  killMarked(marker);
});

test("200 concurrent sessions, each prompted once and closed, events in order, nothing left (R-SUP-1)", async () => {
  const N = 200;
  const ids = await Promise.all(Array.from({ length: N }, () => s.open(fakeAgentSpec(marker))));
  assert.equal(new Set(ids).size, N, "session ids are unique");
  const outcomes = await Promise.all(ids.map((sid, i) => s.ok("session/prompt", { sessionId: sid, text: `slow:5;text:end-${i}` })));
  outcomes.forEach((o, i) => assert.equal(o.text, `1 2 3 4 5 end-${i}`));
  ids.forEach((sid, i) => {
    const texts = s.events(sid).filter((e) => e.type === "messageChunk").map((e) => (e as { text: string }).text);
    assert.deepEqual(texts, ["1 ", "2 ", "3 ", "4 ", "5 ", `end-${i}`]);
  });
  await Promise.all(ids.map((sid) => s.ok("session/close", { sessionId: sid })));
  assert.deepEqual(await waitNoProcesses(marker, 1000), []);
  assert.equal(await s.end(), 0);
});
