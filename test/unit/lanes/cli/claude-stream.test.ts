// The Claude-style stream mapper (claudeCode, qwen, amp) on lines the real CLIs print.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AgentEvent } from "../../../../generated/ts/types.js";
import { ClaudeStreamMapper, claudeResult, denialEvents } from "../../../../src/lanes/cli/claude-stream.js";

function map(lines: object[]): { events: AgentEvent[]; ids: string[]; result?: Record<string, unknown> } {
  const events: AgentEvent[] = [];
  const ids: string[] = [];
  const m = new ClaudeStreamMapper((e) => events.push(e), (id) => ids.push(id));
  let result: Record<string, unknown> | undefined;
  for (const l of lines) result = m.map(l as Record<string, unknown>) ?? result;
  return { events, ids, result };
}

const delta = (text: string) => ({ type: "stream_event", event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } });

describe("cli lane: Claude-style stream", () => {
  it("issue 29: Claude Code's '[Request interrupted by user]' after a cancel (recorded from 2.1.197) is not a user message: nobody typed it", () => {
    for (const text of ["[Request interrupted by user]", "[Request interrupted by user for tool use]"]) {
      const line = { type: "user", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null, session_id: "s", uuid: "u", timestamp: "2026-12-05T03:17:17.052Z" };
      const { events } = map([line]);
      assert.deepEqual(events.map((e) => e.type), ["raw"], text);
    }
    assert.deepEqual(map([{ type: "user", message: { role: "user", content: "what the person typed" } }]).events, [{ type: "userMessageChunk", text: "what the person typed" }]);
  });

  it("text streamed as deltas is not repeated by the assistant message", () => {
    const { events } = map([
      { type: "stream_event", event: { type: "message_start", message: { id: "msg_1" } } },
      delta("Hel"),
      delta("lo"),
      { type: "assistant", message: { id: "msg_1", content: [{ type: "text", text: "Hello" }] } },
    ]);
    assert.deepEqual(events, [
      { type: "messageChunk", text: "Hel" },
      { type: "messageChunk", text: "lo" },
    ]);
  });

  it("Qwen Code gives each block's message its own id: streamed thinking and text are still not repeated", () => {
    const tdelta = (thinking: string) => ({ type: "stream_event", event: { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking } } });
    const { events } = map([
      { type: "stream_event", event: { type: "message_start", message: { id: "a" } } },
      tdelta("Ponder"),
      { type: "assistant", message: { id: "a", content: [{ type: "thinking", thinking: "Ponder" }] } },
      delta("Done."),
      { type: "assistant", message: { id: "b", content: [{ type: "text", text: "Done." }] } },
    ]);
    assert.deepEqual(events, [
      { type: "thoughtChunk", text: "Ponder" },
      { type: "messageChunk", text: "Done." },
    ]);
  });

  it("without deltas (amp) the assistant blocks are the text; tool use and result are paired", () => {
    const { events, ids } = map([
      { type: "system", subtype: "init", session_id: "T-1" },
      { type: "assistant", message: { id: "m1", content: [{ type: "thinking", thinking: "hmm" }, { type: "tool_use", id: "t1", name: "Read", input: { file_path: "/a/b.ts" } }] } },
      { type: "user", message: { content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "body" }] }] } },
      { type: "assistant", message: { id: "m2", content: [{ type: "text", text: "Done." }] } },
    ]);
    assert.deepEqual(ids, ["T-1"]);
    const types = events.map((e) => e.type);
    assert.deepEqual(types, ["raw", "thoughtChunk", "toolCall", "toolCallUpdate", "messageChunk"]);
    assert.deepEqual(events[2], { type: "toolCall", toolCallId: "t1", title: "Read: /a/b.ts", kind: "read", status: "pending", locations: [{ path: "/a/b.ts" }], rawInput: { file_path: "/a/b.ts" } });
    assert.equal((events[3] as { status: string }).status, "completed");
  });

  it("unknown message types are raw events, the result is returned", () => {
    const { events, result } = map([{ type: "rate_limit_event", x: 1 }, { type: "result", subtype: "success", result: "ok" }]);
    assert.deepEqual(events, [{ type: "raw", source: "stdout", payload: { type: "rate_limit_event", x: 1 } }]);
    assert.equal(result?.type, "result");
  });

  it("results: stop reasons, errors, Qwen's [API Error text, usage with cost", () => {
    const ok = claudeResult({ subtype: "success", stop_reason: "max_tokens", usage: { input_tokens: 1, output_tokens: 2 }, total_cost_usd: 0.1 });
    assert.deepEqual(ok.end, { outcome: { stopReason: "maxTokens", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3, costUsd: 0.1 } } });
    const failed = claudeResult({ subtype: "success", is_error: true, result: "API Error: 400 bad" });
    assert.equal("error" in failed.end && failed.end.error.code, "agent_failed");
    const qwen = claudeResult({ subtype: "success", result: "[API Error: 500]" }, { failedText: (t) => t.startsWith("[API Error") });
    assert.equal("error" in qwen.end && qwen.end.error.detail, "[API Error: 500]");
    const qerr = claudeResult({ subtype: "error_during_execution", is_error: true, error: { message: "boom" } });
    assert.equal("error" in qerr.end && qerr.end.error.detail, "boom");
    const turns = claudeResult({ subtype: "error_max_turns" });
    assert.deepEqual(turns.end, { outcome: { stopReason: "maxTurnRequests" } });
  });

  it("permission_denials the host did not decide become permissionResolved events", () => {
    const r = { permission_denials: [{ tool_use_id: "a" }, { tool_use_id: "b" }] };
    assert.deepEqual(denialEvents(r, new Set(["a"])), [{ type: "permissionResolved", toolCallId: "b", outcome: "cancelled", decidedBy: "policy" }]);
  });
});
