import { test } from "node:test";
import assert from "node:assert/strict";
import { classify, decisionOf, failTurn, isPermissionAsk, promptText, withLiveIds } from "../../../src/replay/protocol.js";

test("R-REPLAY-1: prompts of ACP, codex app-server and stream-json are recognised with their text", () => {
  assert.equal(classify({ jsonrpc: "2.0", id: 3, method: "session/prompt", params: { prompt: [{ type: "text", text: "hi" }] } }).kind, "prompt");
  assert.equal(promptText({ method: "session/prompt", params: { prompt: [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }] } }), "ab");
  assert.equal(promptText({ method: "turn/start", params: { input: [{ type: "text", text: "do it" }] } }), "do it");
  assert.equal(promptText({ type: "user", message: { content: [{ type: "text", text: "yo" }] } }), "yo");
  assert.equal(classify({ type: "control_response", response: { request_id: "r1" } }).idKey, '"r1"');
});

test("R-REPLAY-1: recorded answers get the live ids; permission asks and decisions are compared by what they decided", () => {
  const ids = new Map<string, unknown>([["3", 17], ['"a4aa-1"', "a4aa-9"]]);
  assert.deepEqual(withLiveIds({ jsonrpc: "2.0", id: 3, result: {} }, ids), { jsonrpc: "2.0", id: 17, result: {} });
  assert.deepEqual(withLiveIds({ jsonrpc: "2.0", id: 3, method: "x" }, ids), { jsonrpc: "2.0", id: 3, method: "x" }, "requests keep their own ids");
  assert.deepEqual(withLiveIds({ type: "control_response", response: { request_id: "a4aa-1" } }, ids), { type: "control_response", response: { request_id: "a4aa-9" } });
  assert.ok(isPermissionAsk({ id: 1, method: "session/request_permission" }));
  assert.ok(isPermissionAsk({ id: 1, method: "item/commandExecution/requestApproval" }));
  assert.ok(isPermissionAsk({ type: "control_request", request: { subtype: "can_use_tool" } }));
  assert.ok(!isPermissionAsk({ id: 1, method: "fs/read_text_file" }));
  assert.notEqual(decisionOf({ id: 1, result: { outcome: { outcome: "selected", optionId: "yes" } } }), decisionOf({ id: 1, result: { outcome: { outcome: "selected", optionId: "no" } } }));
  assert.equal(
    decisionOf({ type: "control_response", response: { request_id: "x", response: { behavior: "allow", updatedInput: { a: 1 } } } }),
    decisionOf({ type: "control_response", response: { request_id: "y", response: { behavior: "allow", updatedInput: { a: 2 } } } }),
  );
});

test("R-REPLAY-1: a failed turn is an error answer (ACP), turn/completed failed (codex, once started), a result error (stream-json)", () => {
  assert.equal((failTurn({ id: 5, method: "session/prompt" }, "why", undefined)[0] as any).error.message, "a4aa replay: why");
  const codex = failTurn({ id: 6, method: "turn/start", params: { threadId: "t" } }, "why", { result: { turn: { id: "turn-1" } } })[0] as any;
  assert.deepEqual([codex.method, codex.params.turn.status, codex.params.threadId], ["turn/completed", "failed", "t"]);
  assert.equal((failTurn({ type: "user" }, "why", undefined)[0] as any).is_error, true);
});
