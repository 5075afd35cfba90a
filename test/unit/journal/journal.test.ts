import { test } from "node:test";
import assert from "node:assert/strict";
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
