// session/event params written around the event's JSON must be byte for byte what
// JSON.stringify writes of the same params, for every kind of event; a big one is left to
// the writer, which streams it out.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent } from "../../../generated/ts/types.js";
import { eventParamsJson } from "../../../src/server/event-json.js";
import { BIG_STRING_CHARS } from "../../../src/transport/serialize.js";

test("eventParamsJson is JSON.stringify({sessionId, event, seq}) for text, thought, tool and raw events", () => {
  const events: AgentEvent[] = [
    { type: "messageChunk", text: "hello \"quoted\" \n é😀 \ud800" },
    { type: "thoughtChunk", text: "" },
    { type: "toolCall", toolCallId: "t1", title: "ls", kind: "execute", status: "pending" },
    { type: "raw", source: "acp", payload: { nested: [1, { a: null }] } },
  ];
  for (const [i, event] of events.entries()) {
    for (const sessionId of ["s-1", "s-2", 'odd "id"']) {
      assert.equal(eventParamsJson(sessionId, event, i + 1), JSON.stringify({ sessionId, event, seq: i + 1 }));
    }
  }
});

test("the same event to a second connection is the same text; a big one is left to the writer", () => {
  const event: AgentEvent = { type: "messageChunk", text: "x" };
  assert.equal(eventParamsJson("s", event, 7), eventParamsJson("s", event, 7));
  assert.equal(eventParamsJson("s", { type: "messageChunk", text: "x".repeat(BIG_STRING_CHARS + 1) }, 8), undefined);
  assert.equal(eventParamsJson("s", { type: "raw", source: "acp", payload: { t: "x".repeat(BIG_STRING_CHARS + 1) } }, 9), undefined);
});
