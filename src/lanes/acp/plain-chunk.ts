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
