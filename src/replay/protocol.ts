// What the replay needs to know of the agents' wires: which message is a prompt (and its
// text), which ids tie a request to its answer, which requests are permission asks, and
// how a turn is failed on each. JSON-RPC (ACP, codex app-server) and the stream-json
// control protocol (Claude Code, Qwen) are both covered.
type Obj = Record<string, any>;

export type Kind = "prompt" | "request" | "notification" | "response" | "line";

export interface Classified {
  kind: Kind;
  /** The request's method (JSON-RPC) or type/subtype (stream-json). */
  name?: string;
  /** JSON text of the id a response answers or a request carries. */
  idKey?: string;
}

const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

const PROMPT_METHODS = new Set(["session/prompt", "turn/start"]);

export function classify(m: unknown): Classified {
  if (!isObj(m)) return { kind: "line" };
  if (typeof m.method === "string") {
    if (m.id === undefined) return { kind: "notification", name: m.method };
    return { kind: PROMPT_METHODS.has(m.method) ? "prompt" : "request", name: m.method, idKey: JSON.stringify(m.id) };
  }
  if (m.id !== undefined && ("result" in m || "error" in m)) return { kind: "response", idKey: JSON.stringify(m.id) };
  if (m.type === "user") return { kind: "prompt", name: "user" };
  if (m.type === "control_request") return { kind: "request", name: `control_request/${m.request?.subtype}`, idKey: JSON.stringify(m.request_id) };
  if (m.type === "control_response") return { kind: "response", idKey: JSON.stringify(m.response?.request_id) };
  return { kind: "notification", name: typeof m.type === "string" ? m.type : undefined };
}

function texts(blocks: unknown): string {
  if (typeof blocks === "string") return blocks;
  if (!Array.isArray(blocks)) return "";
  return blocks.map((b) => (isObj(b) && b.type === "text" && typeof b.text === "string" ? b.text : "")).join("");
}

/** The text of a prompt message. */
export function promptText(m: unknown): string {
  if (!isObj(m)) return "";
  if (m.method === "session/prompt") return texts(m.params?.prompt);
  if (m.method === "turn/start") return texts(m.params?.input);
  if (m.type === "user") return texts(m.message?.content);
  return "";
}

/** Whether an agent → sidecar request asks for a permission. */
export function isPermissionAsk(m: unknown): boolean {
  if (!isObj(m)) return false;
  if (typeof m.method === "string") return /request_permission|requestApproval|Approval$/.test(m.method);
  return m.type === "control_request" && m.request?.subtype === "can_use_tool";
}

/** What a permission answer decided, comparable between the recording and now. */
export function decisionOf(answer: unknown): string {
  if (!isObj(answer)) return JSON.stringify(answer);
  if ("result" in answer || "error" in answer) return JSON.stringify(answer.result ?? { error: answer.error?.message });
  const r = answer.response?.response;
  return JSON.stringify(isObj(r) ? { behavior: r.behavior } : answer.response);
}

/** The recorded message with the ids of the live requests it answers put in. */
export function withLiveIds(m: unknown, live: Map<string, unknown>): unknown {
  if (!isObj(m)) return m;
  if (m.method === undefined && m.id !== undefined) {
    const key = JSON.stringify(m.id);
    if (live.has(key)) return { ...m, id: live.get(key) };
  }
  if (m.type === "control_response" && isObj(m.response)) {
    const key = JSON.stringify(m.response.request_id);
    if (live.has(key)) return { ...m, response: { ...m.response, request_id: live.get(key) } };
  }
  return m;
}

/** The id a live request carries (to answer it with), by the same rules. */
export function liveId(m: unknown): unknown {
  if (!isObj(m)) return undefined;
  return m.type === "control_request" ? m.request_id : m.id;
}

/**
 * The messages that fail the running turn with `reason` (the lane reports agent_failed).
 * `prompt`: the live prompt message; `started`: the recorded answer to it, if one was sent.
 */
export function failTurn(prompt: unknown, reason: string, started: unknown): unknown[] {
  const message = `a4aa replay: ${reason}`;
  if (!isObj(prompt)) return [];
  if (prompt.method === "session/prompt") return [{ jsonrpc: "2.0", id: prompt.id, error: { code: -32603, message } }];
  if (prompt.method === "turn/start") {
    const turnId = isObj(started) ? started.result?.turn?.id : undefined;
    if (!turnId) return [{ jsonrpc: "2.0", id: prompt.id, error: { code: -32603, message } }];
    return [{ jsonrpc: "2.0", method: "turn/completed", params: { threadId: prompt.params?.threadId, turn: { id: turnId, items: [], status: "failed", error: { message } } } }];
  }
  if (prompt.type === "user") {
    return [{ type: "result", subtype: "error_during_execution", is_error: true, result: message, session_id: prompt.session_id }];
  }
  return [];
}
