// The lineage tracker's pace (R-SUP-5): one look a second while the tree has descendants or a
// turn boundary was just noted; every 5 s for a tree that showed none at 10 looks in a row.
// Real processes; the looks are made by hand (the timer would take 10 s).
import assert from "node:assert/strict";
import { test } from "node:test";
import { startPipe } from "../../../src/supervise/spawn.js";
import { newMarker } from "../../helpers/procs.js";

const env = () => ({ PATH: process.env.PATH!, A4AA_TEST_MARKER: newMarker() });

test("R-SUP-5: a tree without descendants is looked at every 5 s after 10 quiet looks; a turn boundary or a descendant brings back one look a second", async () => {
  // `exec sleep`: one process, no descendant.
  const p = await startPipe({ program: "sh", args: ["-c", "exec sleep 30"], cwd: "/", env: env(), name: "lineage-test" });
  try {
    assert.equal(p.lineage.paceMs, 1000);
    for (let i = 0; i < 9; i++) p.lineage.look();
    assert.equal(p.lineage.paceMs, 1000, "9 quiet looks: still every second");
    p.lineage.look();
    assert.equal(p.lineage.paceMs, 5000, "10 quiet looks: every 5 s");
    p.noteDescendants();
    assert.equal(p.lineage.paceMs, 1000, "a turn boundary: every second again");
    assert.equal(p.lineage.known.size, 0);
  } finally {
    await p.stop({ stdinGraceMs: 0 });
  }
});

test("R-SUP-5: a tree with a descendant stays at one look a second and records it", async () => {
  const p = await startPipe({ program: "sh", args: ["-c", "sleep 30 & echo started; wait"], cwd: "/", env: env(), name: "lineage-test" });
  try {
    await new Promise<void>((resolve) => p.stdout.once("data", () => resolve()));
    for (let i = 0; i < 12; i++) p.lineage.look();
    assert.equal(p.lineage.paceMs, 1000);
    assert.equal(p.lineage.known.size, 1, "the background sleep was recorded");
  } finally {
    await p.stop({ stdinGraceMs: 0 });
  }
});
