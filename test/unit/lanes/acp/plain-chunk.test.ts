// isPlainTextChunk lets plain text chunks skip the schema validator: it must accept only
// what the validator accepts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateSessionNotification } from "../../../../generated/acp/validators.js";
import { isPlainTextChunk } from "../../../../src/lanes/acp/plain-chunk.js";

test("isPlainTextChunk accepts the three text chunk kinds, which the schema validator accepts too", () => {
  for (const kind of ["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]) {
    for (const text of ["", "hello", "é😀\n\"", "x".repeat(100_000)]) {
      const n = { sessionId: "s-1", update: { sessionUpdate: kind, content: { type: "text", text } } };
      assert.equal(isPlainTextChunk(n), true, kind);
      assert.equal(validateSessionNotification(n), true, `${kind} must be valid ACP`);
    }
  }
});

test("anything else goes to the validator", () => {
  const ok = () => ({ sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "t" } } }) as any;
  const variants: unknown[] = [
    null,
    "x",
    [],
    { ...ok(), _meta: {} },
    { ...ok(), sessionId: 1 },
    { sessionId: "s" },
    { ...ok(), update: { ...ok().update, messageId: "m" } },
    { ...ok(), update: { ...ok().update, sessionUpdate: "tool_call" } },
    { ...ok(), update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "t", annotations: null } } },
    { ...ok(), update: { sessionUpdate: "agent_message_chunk", content: { type: "image", data: "", mimeType: "image/png" } } },
    { ...ok(), update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: 5 } } },
    { ...ok(), update: { sessionUpdate: "agent_message_chunk", content: null } },
  ];
  for (const v of variants) assert.equal(isPlainTextChunk(v), false, JSON.stringify(v));
});
