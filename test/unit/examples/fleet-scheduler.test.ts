// The example fleet scheduler's arithmetic (examples/fleet/scheduler.ts); the fleet test
// (test/fleet) drives it against real sidecars.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FleetScheduler, metricSum } from "../../../examples/fleet/scheduler.js";

test("metricSum adds every label set of one metric and nothing of a longer name", () => {
  const text = [
    "# HELP a4aa_sessions Sessions held now, by state.",
    'a4aa_sessions{state="idle"} 3',
    'a4aa_sessions{state="turn"} 2',
    "a4aa_sessions_total 99",
    "a4aa_turns_in_flight 2",
  ].join("\n");
  assert.equal(metricSum(text, "a4aa_sessions"), 5);
  assert.equal(metricSum(text, "a4aa_turns_in_flight"), 2);
  assert.equal(metricSum(text, "a4aa_missing"), undefined);
});

test("pick: a ready sidecar with the least load (reported sessions or held ones, plus opens under way); never a busy or unreachable one", () => {
  const f = new FleetScheduler(["ws://a:1", "ws://b:1", "ws://c:1"]);
  const [a, b, c] = f.sidecars;
  assert.equal(f.pick(), undefined, "nothing is ready before a poll");
  Object.assign(a, { state: "ready", sessions: 4 });
  Object.assign(b, { state: "ready", sessions: 1, held: 3, placing: 1 });
  Object.assign(c, { state: "busy", sessions: 0 });
  assert.equal(f.pick(), a, "4 against b's max(1, 3) + 1: the first of equals");
  b.placing = 0;
  assert.equal(f.pick(), b);
  assert.equal(f.pick(new Set([b])), a);
  a.state = "unreachable";
  assert.equal(f.pick(new Set([b])), undefined);
});
