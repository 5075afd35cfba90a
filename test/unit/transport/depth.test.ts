import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../../src/transport/depth.js";
import { rawIds } from "../../../src/transport/raw-id.js";

const deep = (n: number, open = "[", close = "]") => open.repeat(n) + close.repeat(n);

test("R-HOSTILE-1: nesting is measured without recursion, 10^5 levels deep", () => {
  assert.equal(nestsDeeperThan(deep(100_000)), true);
  assert.equal(nestsDeeperThan('{"a":' .repeat(100_000) + "1" + "}".repeat(100_000)), true);
  assert.equal(nestsDeeperThan(deep(MAX_JSON_DEPTH)), false);
  assert.equal(nestsDeeperThan(deep(MAX_JSON_DEPTH + 1)), true);
});

test("R-HOSTILE-1: brackets inside strings do not count, escaped quotes do not end a string", () => {
  const s = JSON.stringify({ t: "[".repeat(5000) + '\\"' + "{".repeat(5000), u: '\\\\"' });
  assert.equal(nestsDeeperThan(s, 10), false);
  assert.equal(nestsDeeperThan(`[${JSON.stringify('a\\"[[[[')},${deep(11)}]`, 10), true);
});

test("R-HOSTILE-1: the raw-id scanner skips a value nested 10^5 deep", () => {
  const line = `{"params":${deep(100_000)},"id":12345678901234567890}`;
  assert.equal(rawIds(line), "12345678901234567890");
});
