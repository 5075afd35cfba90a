// isPlainTextChunk lets plain text chunks skip the schema validator: it must accept only
// what the validator accepts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateSessionNotification } from "../../../../generated/acp/validators.js";
import { isPlainTextChunk, parseTextChunkLine } from "../../../../src/lanes/acp/plain-chunk.js";

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

// parseTextChunkLine stands in for JSON.parse on the agent's most common line: whatever it
// returns must be exactly JSON.parse's value, and it must decline every other line.
const line = (sid: string, kind: string, text: string) =>
  `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sid)},"update":{"sessionUpdate":"${kind}","content":{"type":"text","text":${JSON.stringify(text)}}}}}`;

test("parseTextChunkLine gives JSON.parse's value for text chunks, escapes and all", () => {
  const texts = ["", "hello", 'quote " backslash \\ slash /', "line\nbreak\ttab\r\b\f", "\u0000\u001f control", "é😀 中文", "\ud800 lone", "\u2028\u2029", "x".repeat(800)];
  for (const kind of ["agent_message_chunk", "agent_thought_chunk"]) {
    for (const text of texts) {
      const l = line("sess-1", kind, text);
      assert.deepEqual(parseTextChunkLine(l), JSON.parse(l), l.slice(0, 120));
    }
  }
  // Escapes written other ways than JSON.stringify's (\u0041, \/): still JSON.parse's value.
  const odd = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\\u0041\\/\\u00e9\\ud83d\\ude00"}}}}';
  assert.deepEqual(parseTextChunkLine(odd), JSON.parse(odd));
  assert.equal((parseTextChunkLine(odd) as any).params.update.content.text, "A/é😀");
  // A long line is JSON.parse's (as fast from about 1 KiB on, and no regular expression runs over MiBs).
  assert.equal(parseTextChunkLine(line("s", "agent_message_chunk", "x".repeat(2000))), undefined);
});

test("parseTextChunkLine declines every other line (JSON.parse then decides)", () => {
  const good = line("s", "agent_message_chunk", "t");
  const others = [
    good.replace('"jsonrpc":"2.0",', ""),
    good.replace("}}}}", "}}}} "),
    good.replace("}}}}", '},"_meta":{}}}}'),
    good.replace('"text":"t"', '"text":"t","annotations":null'),
    good.replace("agent_message_chunk", "user_message_chunk"),
    good.replace("agent_message_chunk", "tool_call"),
    good.replace('"sessionId":"s"', '"sessionId":"s\\"x"'),
    good.replace('"text":"t"', '"text":"a"b"'),
    good.replace('"text":"t"', '"text":"bad \\x escape"'),
    good.replace('"text":"t"', '"text":"short \\u12"'),
    good.replace('"text":"t"', '"text":"raw \u0001 control"'),
    good.replace('"text":"t"', '"text":"ends in a backslash\\"'),
    line("s", "agent_message_chunk", "t").replace('{"jsonrpc"', '{"id":1,"jsonrpc"'),
  ];
  for (const l of others) assert.equal(parseTextChunkLine(l), undefined, l);
});
