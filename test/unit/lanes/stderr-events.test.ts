import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent } from "../../../generated/ts/types.js";
import { droppedNote, forwardStderr } from "../../../src/lanes/stderr-events.js";
import type { SupervisedProcess } from "../../../src/supervise/supervised-process.js";
import { FlowGate } from "../../../src/transport/flow-gate.js";

function fakeProc() {
  let listener: ((l: string) => void) | null = null;
  let exit!: () => void;
  const proc = {
    exited: new Promise<void>((r) => (exit = r)),
    onStderrLine: (cb: (l: string) => void) => ((listener = cb), () => (listener = null)),
  } as unknown as SupervisedProcess;
  return { proc, line: (l: string) => listener?.(l), exit };
}

test("R-HOSTILE-2: stderr lines are dropped and counted while the host is not reading, and the count is reported once it reads again", () => {
  const { proc, line } = fakeProc();
  const gate = new FlowGate();
  const got: AgentEvent[] = [];
  const outside: string[] = [];
  let inTurn = true;
  const off = forwardStderr(proc, gate, () => inTurn, (e) => got.push(e), (l) => outside.push(l));
  line("one");
  gate.set(false);
  for (let i = 0; i < 1000; i++) line(`lost ${i}`);
  assert.equal(got.length, 1, "nothing is held while the gate is closed");
  gate.set(true);
  line("two");
  assert.deepEqual(got, [
    { type: "stderr", text: "one" },
    { type: "stderr", text: droppedNote(1000) },
    { type: "stderr", text: "two" },
  ]);
  inTurn = false;
  line("between turns");
  assert.deepEqual(outside, ["between turns"]);
  off();
  line("after off");
  assert.equal(got.length, 3);
  assert.equal(droppedNote(1), "[a4aa: 1 stderr line of the agent dropped while the host was not reading]");
});
