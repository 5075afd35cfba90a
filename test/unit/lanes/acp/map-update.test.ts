import { test } from "node:test";
import assert from "node:assert/strict";
import { contentTexts, mapMetaQuotaUsage, mapPromptUsage, mapStopReason, mapUpdate, type ToolCallMemory } from "../../../../src/lanes/acp/map-update.js";
import type * as A from "../../../../generated/acp/types.js";

const n = (update: Record<string, unknown>) => ({ sessionId: "s", update }) as unknown as A.SessionNotification;
const text = (t: string) => ({ type: "text", text: t });

const cases: [string, Record<string, unknown>, unknown][] = [
  ["agent_message_chunk", { sessionUpdate: "agent_message_chunk", content: text("hi") }, { type: "messageChunk", text: "hi" }],
  ["agent_thought_chunk", { sessionUpdate: "agent_thought_chunk", content: text("hm") }, { type: "thoughtChunk", text: "hm" }],
  ["user_message_chunk", { sessionUpdate: "user_message_chunk", content: text("q") }, { type: "userMessageChunk", text: "q" }],
  [
    "tool_call",
    { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read", kind: "read", status: "in_progress", locations: [{ path: "/a", line: 3 }], rawInput: { p: 1 } },
    { type: "toolCall", toolCallId: "t1", title: "Read", kind: "read", status: "inProgress", locations: [{ path: "/a", line: 3 }], rawInput: { p: 1 } },
  ],
  [
    "tool_call with an unknown kind and no status",
    { sessionUpdate: "tool_call", toolCallId: "t2", title: "Switch", kind: "switch_mode" },
    { type: "toolCall", toolCallId: "t2", title: "Switch", kind: "other", status: "pending" },
  ],
  [
    "tool_call_update with text and a diff",
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      status: "completed",
      content: [
        { type: "content", content: text("out") },
        { type: "diff", path: "/f", oldText: "a\nb\n", newText: "a\n" },
        { type: "diff", path: "/g", newText: "x" },
      ],
      rawOutput: { ok: true },
    },
    { type: "toolCallUpdate", toolCallId: "t1", status: "completed", contentTexts: ["out", "edit /f (-2 +1 lines)", "create /g (+1 lines)"], rawOutput: { ok: true } },
  ],
  [
    "plan",
    { sessionUpdate: "plan", entries: [{ content: "a", status: "in_progress", priority: "high" }, { content: "b", status: "pending", priority: "weird" }] },
    { type: "plan", entries: [{ content: "a", status: "inProgress", priority: "high" }, { content: "b", status: "pending" }] },
  ],
  ["current_mode_update", { sessionUpdate: "current_mode_update", currentModeId: "code" }, { type: "modeChanged", modeId: "code" }],
  [
    "usage_update in USD",
    { sessionUpdate: "usage_update", used: 10, size: 100, cost: { amount: 0.5, currency: "USD" } },
    { type: "usage", contextUsedTokens: 10, contextWindowTokens: 100, costUsd: 0.5 },
  ],
  ["usage_update in credits", { sessionUpdate: "usage_update", used: 1, size: 2, cost: { amount: 9, currency: "credits" } }, { type: "usage", contextUsedTokens: 1, contextWindowTokens: 2 }],
  ["session_info_update", { sessionUpdate: "session_info_update", title: "T" }, { type: "sessionInfo", title: "T" }],
];
for (const [name, update, expected] of cases) {
  test(`maps ${name}`, () => assert.deepEqual(mapUpdate(n(update), new Map()), expected));
}

test("unknown and unmappable updates become raw with the whole notification", () => {
  for (const u of [
    { sessionUpdate: "available_commands_update", availableCommands: [] },
    { sessionUpdate: "agent_message_chunk", content: { type: "image", data: "", mimeType: "image/png" } },
    { sessionUpdate: "brand_new" },
  ]) {
    assert.deepEqual(mapUpdate(n(u), new Map()), { type: "raw", source: "acp", payload: { sessionId: "s", update: u } });
  }
});

test("tool call memory records titles and kinds for later permission requests", () => {
  const mem = new Map<string, ToolCallMemory>();
  mapUpdate(n({ sessionUpdate: "tool_call", toolCallId: "t", title: "Edit", kind: "edit" }), mem);
  mapUpdate(n({ sessionUpdate: "tool_call_update", toolCallId: "t", title: "Edit f" }), mem);
  assert.deepEqual(mem.get("t"), { title: "Edit f", kind: "edit" });
});

test("stop reasons and prompt usage", () => {
  assert.equal(mapStopReason("max_turn_requests"), "maxTurnRequests");
  assert.equal(mapStopReason("new_reason"), undefined);
  assert.deepEqual(mapPromptUsage({ inputTokens: 1, outputTokens: 2, totalTokens: 3, thoughtTokens: 4, cachedReadTokens: 5 }), {
    inputTokens: 1,
    outputTokens: 2,
    totalTokens: 3,
    reasoningTokens: 4,
    cachedInputTokens: 5,
  });
  assert.equal(mapPromptUsage(null), undefined);
  assert.deepEqual(contentTexts([{ type: "terminal", terminalId: "x" }]), ["terminal x"]);
});

test("R-USAGE-1: Gemini's PromptResponse _meta.quota.token_count is the turn's usage (input and output only, nothing derived)", () => {
  const meta = { quota: { token_count: { input_tokens: 6020, output_tokens: 15 }, model_usage: [{ model: "gemini-2.5-flash", token_count: { input_tokens: 6020, output_tokens: 15 } }] } };
  assert.deepEqual(mapMetaQuotaUsage(meta), { inputTokens: 6020, outputTokens: 15 });
  assert.equal(mapMetaQuotaUsage(undefined), undefined);
  assert.equal(mapMetaQuotaUsage({ quota: {} }), undefined);
  assert.equal(mapMetaQuotaUsage({ quota: { token_count: { input_tokens: -1, output_tokens: "x" } } }), undefined);
});
