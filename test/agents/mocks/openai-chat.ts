// Mock of the OpenAI Chat Completions API (Qwen Code, opencode): `POST /v1/chat/completions`
// (SSE when `stream` is true, else JSON), `GET /v1/models`.
import type http from "node:http";
import type { ApiErrors, HandlerContext, ImagePart, MockOptions, ModelMock, RecordedRequest, Reply, Script } from "./common.js";
import { answeredCommon, offersTools, approxTokens, chunkText, sendJson, shellArgs, startMockServer, StreamWriter, valueForSchema, imageFromDataUrl, replyFor, auxText, serveOpenAiRest } from "./common.js";

export type { ModelMock } from "./common.js";

/** OpenAI's error answers (Chat Completions and Responses alike). */
export const OPENAI_ERRORS: ApiErrors = {
  types: { 400: "invalid_request_error", 401: "invalid_request_error", 403: "permission_denied", 404: "not_found", 429: "rate_limit_exceeded", 500: "server_error", 503: "server_error" },
  fallback: "server_error",
  body: (r, message, type) => ({ error: { message, type, param: null, code: r.errorType ?? null } }),
  headers: (_r, ctx) => ({ "x-request-id": `req_mock_${ctx.counter()}` }),
};

/** A main turn offers tools; auxiliary requests (session titles, JSON checks) offer none. */
export const chatIsMain = offersTools;

function shellCall(req: RecordedRequest, command: string): { name: string; args: Record<string, unknown> } {
  const tools: any[] = Array.isArray(req.body?.tools) ? req.body.tools : [];
  const fnOf = (t: any) => t?.function ?? t;
  const t =
    ["run_shell_command", "bash", "shell", "exec_command"].map((n) => tools.find((x) => fnOf(x)?.name === n)).find(Boolean) ??
    tools.find((x) => /shell|bash/i.test(String(fnOf(x)?.name)));
  if (!t) return { name: "bash", args: { command, description: "Run a shell command" } };
  return { name: fnOf(t).name, args: shellArgs(fnOf(t).parameters, command) };
}

interface Parts {
  reasoning: string[];
  content: string[];
  toolCalls: { id: string; name: string; arguments: string }[];
  finish: string;
  delayMs: number;
}

function partsFor(r: Reply, req: RecordedRequest, ctx: HandlerContext): Parts {
  const p: Parts = { reasoning: [], content: [], toolCalls: [], finish: "stop", delayMs: 0 };
  switch (r.type) {
    case "text":
      p.content = chunkText(r.text, r.chunkSize);
      break;
    case "thinking":
      p.reasoning = chunkText(r.thinking);
      p.content = chunkText(r.text);
      break;
    case "slow":
      p.content = r.chunks;
      p.delayMs = r.delayMs;
      break;
    case "tool": {
      if (r.text) p.content = chunkText(r.text);
      const call = r.command !== undefined ? shellCall(req, r.command) : { name: r.name ?? "bash", args: r.args ?? {} };
      p.toolCalls = [{ id: r.id ?? `call_mock_${ctx.counter()}`, name: call.name, arguments: JSON.stringify(call.args) }];
      p.finish = "tool_calls";
      break;
    }
  }
  return p;
}

async function serveChat(req: RecordedRequest, res: http.ServerResponse, ctx: HandlerContext): Promise<void> {
  const r = replyFor(req, ctx, chatIsMain, (aux): Reply => {
    const schema = aux.body?.response_format?.json_schema?.schema;
    if (!schema && aux.body?.response_format?.type !== "json_object") return auxText(aux, "Mock title");
    aux.served = "aux-json";
    return { type: "text", text: JSON.stringify(schema ? valueForSchema(schema) : {}) };
  });
  if (await answeredCommon(r, req, res, ctx, OPENAI_ERRORS)) return;
  const p = partsFor(r, req, ctx);
  const id = `chatcmpl-mock-${ctx.counter()}`;
  const model = String(req.body?.model ?? "mock-model");
  const created = Math.floor(Date.now() / 1000);
  const prompt_tokens = approxTokens(req.body?.messages);
  const completion_tokens = approxTokens([p.reasoning, p.content, p.toolCalls]);
  const usage = { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };

  if (req.body?.stream !== true) {
    const message: Record<string, unknown> = { role: "assistant", content: p.content.join("") || null };
    if (p.reasoning.length) message.reasoning_content = p.reasoning.join("");
    if (p.toolCalls.length)
      message.tool_calls = p.toolCalls.map((t) => ({ id: t.id, type: "function", function: { name: t.name, arguments: t.arguments } }));
    sendJson(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: p.finish }], usage });
    return;
  }
  const w = new StreamWriter(res);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    w.event(null, { id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  chunk({ role: "assistant", content: "" });
  for (const piece of p.reasoning) chunk({ reasoning_content: piece });
  for (const piece of p.content) {
    if (p.delayMs && !(await w.sleep(p.delayMs))) return;
    chunk({ content: piece });
  }
  p.toolCalls.forEach((t, index) => {
    chunk({ tool_calls: [{ index, id: t.id, type: "function", function: { name: t.name, arguments: "" } }] });
    chunk({ tool_calls: [{ index, function: { arguments: t.arguments } }] });
  });
  chunk({}, p.finish);
  w.event(null, { id, object: "chat.completion.chunk", created, model, choices: [], usage });
  w.write("data: [DONE]\n\n");
  w.end();
}

/** `image_url` parts (`{image_url: {url: "data:…"}}`) of the messages. */
export function chatImages(body: any): ImagePart[] {
  const out: ImagePart[] = [];
  for (const m of Array.isArray(body?.messages) ? body.messages : []) {
    if (!Array.isArray(m?.content)) continue;
    for (const p of m.content) {
      if (p?.type !== "image_url") continue;
      const img = imageFromDataUrl(typeof p.image_url === "string" ? p.image_url : p.image_url?.url);
      if (img) out.push(img);
    }
  }
  return out;
}

export function startChatMock(script?: Script | MockOptions): Promise<ModelMock> {
  const opts: MockOptions = Array.isArray(script) || typeof script === "function" ? { script } : (script ?? {});
  return startMockServer("chat-mock", opts, async (req, res, ctx) => {
    const p = req.path.replace(/\/+$/, "") || "/";
    if (req.method === "POST" && p.endsWith("/chat/completions")) return serveChat(req, res, ctx);
    serveOpenAiRest(req, res, ["mock-model", "qwen3-coder-plus"]);
  }, chatImages);
}
