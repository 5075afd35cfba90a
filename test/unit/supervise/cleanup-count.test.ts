// R-SUP-6: a close counts each stop ladder it asked for once, however often it asked.
import assert from "node:assert/strict";
import { test } from "node:test";
import { countCleanup, noteCleanup } from "../../../src/supervise/cleanup-count.js";

test("R-SUP-6: countCleanup sums the ladders noted during the cleanup, each once; ladders noted outside do not count", async () => {
  const a = Promise.resolve({ ended: 3, killed: 1 });
  const b = new Promise<{ ended: number; killed: number }>((r) => setTimeout(() => r({ ended: 2, killed: 0 }), 20));
  noteCleanup(Promise.resolve({ ended: 100, killed: 100 }));
  const r = await countCleanup(async () => {
    noteCleanup(a);
    await new Promise((x) => setTimeout(x, 1));
    noteCleanup(a);
    noteCleanup(b); // still running when the cleanup's own work is done: waited for
    return "done";
  });
  assert.deepEqual(r, { value: "done", processes: { ended: 5, killed: 1 } });
  assert.deepEqual((await countCleanup(async () => 1)).processes, { ended: 0, killed: 0 });
});
