import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_TURN_TEXT, TRUNCATED_MARKER, appendBounded } from "../../../src/sessions/bounded-text.js";

test("R-HOSTILE-2: the turn's text grows up to MAX_TURN_TEXT, then is cut once with the marker", () => {
  let t = "";
  const chunk = "a".repeat(1 << 20);
  for (let i = 0; i < (MAX_TURN_TEXT >> 20) + 8; i++) t = appendBounded(t, chunk);
  assert.equal(t.length, MAX_TURN_TEXT + TRUNCATED_MARKER.length);
  assert.ok(t.endsWith(TRUNCATED_MARKER));
  assert.equal(appendBounded(t, "more"), t);
  assert.equal(appendBounded("ab", "cd"), "abcd");
});

test("R-HOSTILE-2: the cut never splits a surrogate pair", () => {
  const head = "x".repeat(MAX_TURN_TEXT - 1);
  const t = appendBounded(head, "😀tail");
  assert.equal(t, head + TRUNCATED_MARKER);
});
