import { test } from "node:test";
import assert from "node:assert/strict";
import v8 from "node:v8";
import vm from "node:vm";
import { Journal } from "../../../src/journal/journal.js";

const ev = (text: string) => ({ type: "messageChunk" as const, text });

test("R-SEQ-1: append numbers from 1 without gaps; history pages by afterSeq and limit", () => {
  const j = new Journal();
  assert.deepEqual(j.history(), { events: [], firstSeq: 1, lastSeq: 0 });
  for (let i = 1; i <= 5; i++) assert.equal(j.append(ev(String(i))), i);
  assert.deepEqual(j.history(3).events.map((e) => e.seq), [4, 5]);
  assert.deepEqual(j.history(0, 2).events.map((e) => e.seq), [1, 2]);
  assert.deepEqual(j.history(9).events, []);
});

test("R-SEQ-1: the count bound drops the oldest and moves firstSeq", () => {
  const j = new Journal({ maxEvents: 3, maxBytes: 1 << 20 });
  for (let i = 0; i < 10_000; i++) j.append(ev("x"));
  const h = j.history();
  assert.equal(h.firstSeq, 9_998);
  assert.equal(h.lastSeq, 10_000);
  assert.deepEqual(h.events.map((e) => e.seq), [9_998, 9_999, 10_000]);
});

test("R-SEQ-1: the byte bound drops the oldest, but the newest event is always kept", () => {
  const j = new Journal({ maxEvents: 100, maxBytes: 100 });
  j.append(ev("a".repeat(60)));
  j.append(ev("b".repeat(60)));
  assert.equal(j.history().firstSeq, 2);
  j.append(ev("c".repeat(500)));
  assert.deepEqual(j.history().events.map((e) => e.seq), [3]);
  assert.ok(j.keptBytes > 100);
});

test("R-SEQ-1: dropped events are released at once, not at the next compaction (a flood of big events stays within the byte bound)", async () => {
  const j = new Journal({ maxEvents: 10_000, maxBytes: 4 * 1024 * 1024 });
  const refs: WeakRef<object>[] = [];
  for (let i = 0; i < 64; i++) {
    const event = { type: "messageChunk" as const, text: "x".repeat(1024 * 1024) + i };
    refs.push(new WeakRef(event));
    j.append(event);
  }
  assert.ok(j.keptBytes <= 4 * 1024 * 1024 + 64, `kept ${j.keptBytes} bytes`);
  // A collection, to see that nothing holds the dropped events any more.
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  await new Promise((r) => setImmediate(r));
  gc();
  assert.ok(refs.slice(0, 32).every((r) => r.deref() === undefined), "the dropped events were freed");
  assert.equal(j.history().events.length, j.size);
  assert.equal(j.history().events[0].seq, j.firstSeq);
});
