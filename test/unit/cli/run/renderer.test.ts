// The renderer `a4aa run` and `a4aa demo` share, into a pipe (PlainScreen), colours off.
import assert from "node:assert/strict";
import { test } from "node:test";
import { A4aaError } from "../../../../clients/ts/index.js";
import type { AgentEvent } from "../../../../generated/ts/types.js";
import { Renderer } from "../../../../src/cli/run/renderer.js";
import { PlainScreen, fullRows } from "../../../../src/cli/run/screen.js";
import { colors, fit, wantColor } from "../../../../src/cli/run/style.js";
import { optionKeys } from "../../../../src/cli/run/keys.js";

function sink(): { out: NodeJS.WritableStream; text: () => string } {
  let text = "";
  return { out: { write: (s: string) => ((text += s), true) } as unknown as NodeJS.WritableStream, text: () => text };
}

test("a turn reads as text: streamed reply and thought, one line per finished tool call, the plan, the usage line", () => {
  const s = sink();
  const r = new Renderer(new PlainScreen(s.out), colors(false));
  r.turnStarted();
  const events: AgentEvent[] = [
    { type: "thoughtChunk", text: "Let me " },
    { type: "thoughtChunk", text: "look." },
    { type: "plan", entries: [{ content: "Read", status: "inProgress" }, { content: "Answer", status: "pending" }] },
    { type: "toolCall", toolCallId: "t1", title: "Read a.txt", kind: "read", status: "pending" },
    { type: "toolCallUpdate", toolCallId: "t1", status: "inProgress" },
    { type: "toolCallUpdate", toolCallId: "t1", status: "completed", contentTexts: ["3 lines"] },
    { type: "toolCall", toolCallId: "t2", title: "Run ls", kind: "execute", status: "pending" },
    { type: "toolCallUpdate", toolCallId: "t2", status: "failed", contentTexts: ["denied"] },
    { type: "messageChunk", text: "All " },
    { type: "messageChunk", text: "done.\nBye." },
    { type: "usage", contextUsedTokens: 1500, contextWindowTokens: 200000, costUsd: 0.01 },
    { type: "raw", source: "acp", payload: {} },
  ];
  for (const e of events) r.event(e);
  r.turnEnded({ stopReason: "endTurn", usage: { inputTokens: 1200, outputTokens: 30 } });
  assert.match(
    s.text(),
    /^thinking: Let me look\.\nplan\n {2}\[~\] Read\n {2}\[ \] Answer\n✓ done Read a\.txt \(read\) — 3 lines\n✗ failed Run ls \(execute\) — denied\nAll done\.\nBye\.\n── done · 1\.2k in \/ 30 out · context 1\.5k\/200k · \$0\.0100 · \d+\.\ds\n$/,
  );
});

test("a failed call in words with the fix for its code (error.data.code → hint)", () => {
  const s = sink();
  const r = new Renderer(new PlainScreen(s.out), colors(false));
  r.failed(A4aaError.fromWire({ code: -32000, message: "Agent exited", data: { code: "agent_exited", stage: "prompt", retryable: false, uncertainEffect: true, detail: "exit 1" } }), "the turn");
  assert.match(s.text(), /^✗ the turn failed: Agent exited \(agent_exited, stage prompt, uncertain effect\): exit 1\n {2}fix: the agent's process ended/);
  const t = sink();
  new Renderer(new PlainScreen(t.out), colors(false)).failed(new Error("boom"), "x");
  assert.equal(t.text(), "✗ x failed: boom\n", "no made-up fix when none is known");
});

test("colours only where they belong: a terminal, not NO_COLOR, not --no-color; FORCE_COLOR for a pipe", () => {
  const tty = { isTTY: true };
  assert.equal(wantColor(tty, {}, false), true);
  assert.equal(wantColor(tty, { NO_COLOR: "1" }, false), false);
  assert.equal(wantColor(tty, {}, true), false);
  assert.equal(wantColor(tty, { TERM: "dumb" }, false), false);
  assert.equal(wantColor({}, {}, false), false);
  assert.equal(wantColor({}, { FORCE_COLOR: "1" }, false), true);
  assert.equal(wantColor({}, { FORCE_COLOR: "" }, false), false);
});

test("text is word-wrapped into rows that fit, and lines are cut to the width", () => {
  assert.deepEqual(fullRows("aaa bbb ccc dd", 7), { rows: ["aaa bbb"], rest: "ccc dd" });
  assert.deepEqual(fullRows("abcdefghij", 4), { rows: ["abcd", "efgh"], rest: "ij" });
  assert.deepEqual(fullRows("short", 10), { rows: [], rest: "short" });
  assert.equal(fit("a long title here", 8), "a long …");
  assert.equal(fit("two\nlines", 20), "two ⏎ lines");
});

test("one key per permission option the agent offered, digits where a kind repeats", () => {
  assert.deepEqual(
    optionKeys([
      { optionId: "a", name: "Allow", kind: "allowOnce" },
      { optionId: "b", name: "Always", kind: "allowAlways" },
      { optionId: "c", name: "Reject", kind: "rejectOnce" },
      { optionId: "d", name: "Reject (other)", kind: "rejectOnce" },
      { optionId: "e", name: "Never", kind: "rejectAlways" },
    ]),
    ["y", "a", "n", "4", "x"],
  );
});
