// The common case of what an ACP agent streams, recognised without the schema validator.
import type * as A from "../../../generated/acp/types.js";

/**
 * `{sessionId, update: {sessionUpdate: <a chunk kind>, content: {type: "text", text}}}` and
 * nothing more: a subset of what validateSessionNotification accepts (checked by a test),
 * tested in a fraction of its time — streamed text is most of what an agent sends.
 */
export function isPlainTextChunk(params: unknown): params is A.SessionNotification {
  if (!params || typeof params !== "object") return false;
  const p = params as { sessionId?: unknown; update?: unknown };
  if (typeof p.sessionId !== "string" || !p.update || typeof p.update !== "object" || keyCount(p) !== 2) return false;
  const u = p.update as { sessionUpdate?: unknown; content?: unknown };
  const kind = u.sessionUpdate;
  if (kind !== "agent_message_chunk" && kind !== "agent_thought_chunk" && kind !== "user_message_chunk") return false;
  if (!u.content || typeof u.content !== "object" || keyCount(u) !== 2) return false;
  const c = u.content as { type?: unknown; text?: unknown };
  return c.type === "text" && typeof c.text === "string" && keyCount(c) === 2;
}

function keyCount(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

// A streamed text chunk as the ACP SDKs write it (their member order): the session id
// without escapes, the text any JSON string (the loop unrolled: no backtracking).
const TEXT_CHUNK_LINE =
  /^\{"jsonrpc":"2\.0","method":"session\/update","params":\{"sessionId":"([^"\\\x00-\x1f]*)","update":\{"sessionUpdate":"(agent_message_chunk|agent_thought_chunk)","content":\{"type":"text","text":"([^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*)"\}\}\}\}$/;
/** Longer lines are left to JSON.parse, which is as fast or faster from about 1 KiB on. */
const MAX_CHUNK_LINE = 1024;

/**
 * A line that is a plain text chunk, parsed by one regular expression instead of
 * JSON.parse (a fraction of its time): the very value JSON.parse gives, or undefined for
 * any other line. Streamed text is most of what an agent writes.
 */
export function parseTextChunkLine(line: string): unknown {
  if (line.length > MAX_CHUNK_LINE) return undefined;
  const m = TEXT_CHUNK_LINE.exec(line);
  if (!m) return undefined;
  // The group is a valid JSON string: JSON.parse of it, quotes and all, decodes its escapes
  // and gives a string of its own (a substring would keep the whole line alive as long as
  // the journal and the turn's text hold the chunk: 5× the memory for small chunks).
  const n = m[3]!.length;
  const text = JSON.parse(line.slice(line.length - 6 - n, line.length - 4)) as string;
  return { jsonrpc: "2.0", method: "session/update", params: { sessionId: m[1], update: { sessionUpdate: m[2], content: { type: "text", text } } } };
}
