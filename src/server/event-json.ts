// The params of a session/event as JSON text, made once per event: an event goes to every
// attached connection, and streamed text is nearly all of what a sidecar writes, so the
// envelope is written around the event's own JSON instead of serialising a new object
// per connection.
import type { AgentEvent } from "../../generated/ts/types.js";
import { BIG_STRING_CHARS, hasBigString } from "../transport/serialize.js";

let last: { sessionId: string; event: AgentEvent; seq: number; json: string } | undefined;
let lastSession = { id: "", json: '""' };

/**
 * `{"sessionId":…,"event":…,"seq":…}` as JSON.stringify writes it; undefined when the
 * event holds a big string (the writer streams such a message out a slice at a time).
 */
export function eventParamsJson(sessionId: string, event: AgentEvent, seq: number): string | undefined {
  if (last && last.event === event && last.seq === seq && last.sessionId === sessionId) return last.json;
  if (lastSession.id !== sessionId) lastSession = { id: sessionId, json: JSON.stringify(sessionId) };
  let e: string;
  // A chunk of text (the schema allows it no other member) is written without walking it.
  if (event.type === "messageChunk" || event.type === "thoughtChunk") {
    if (event.text.length > BIG_STRING_CHARS) return undefined;
    e = `{"type":"${event.type}","text":${JSON.stringify(event.text)}}`;
  } else {
    if (hasBigString(event)) return undefined;
    e = JSON.stringify(event);
  }
  const json = `{"sessionId":${lastSession.json},"event":${e},"seq":${seq}}`;
  last = { sessionId, event, seq, json };
  return json;
}
