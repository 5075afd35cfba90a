// Mock of the Anthropic Messages API (Claude Code, claude-agent-acp): `POST /v1/messages`
// (SSE or JSON), `POST /v1/messages/count_tokens`, `GET /v1/models`, `HEAD /`.
import type http from "node:http";
import type { ApiErrors, HandlerContext, ImagePart, MockOptions, ModelMock, RecordedRequest, Reply, Script } from "./common.js";
import { answeredCommon, offersTools, approxTokens, chunkText, sendJson, startMockServer, StreamWriter, imagePart, shellArgs, replyFor } from "./common.js";

export type { ModelMock } from "./common.js";

const ERRORS: ApiErrors = {
  types: { 400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error" },
  fallback: "api_error",
  body: (_r, message, type) => ({ type: "error", error: { type, message } }),
  headers: (r, ctx) => ({
    "request-id": `req_mock_${ctx.counter()}`,
    ...(r.status === 429 || r.status === 529 || r.status >= 500 ? { "x-should-retry": "false" } : {}),
  }),
};

/** A main turn is a `/v1/messages` request that offers tools (auxiliary ones, e.g. titles, offer none). */
export const anthropicIsMain = offersTools;

/** The shell tool's name and input for a command: Claude Code's `Bash`. */
function shellCall(req: RecordedRequest, command: string): { name: string; input: Record<string, unknown> } {
  const tools: any[] = Array.isArray(req.body?.tools) ? req.body.tools : [];
  const t = tools.find((x) => x?.name === "Bash") ?? tools.find((x) => /bash|shell/i.test(String(x?.name)));
  return { name: t?.name ?? "Bash", input: shellArgs(t?.input_schema, command) };
}

type Block =
  | { type: "text"; pieces: string[] }
  | { type: "thinking"; pieces: string[] }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

function blocksFor(r: Reply, req: RecordedRequest, ctx: HandlerContext): { blocks: Block[]; stop: string } {
  switch (r.type) {
    case "text":
      return { blocks: [{ type: "text", pieces: chunkText(r.text, r.chunkSize) }], stop: "end_turn" };
    case "thinking":
      return {
        blocks: [
          { type: "thinking", pieces: chunkText(r.thinking) },
          { type: "text", pieces: chunkText(r.text) },
        ],
        stop: "end_turn",
      };
    case "tool": {
      const call = r.command !== undefined ? shellCall(req, r.command) : { name: r.name ?? "Bash", input: r.args ?? {} };
      const blocks: Block[] = [];
      if (r.text) blocks.push({ type: "text", pieces: chunkText(r.text) });
      blocks.push({ type: "tool_use", id: r.id ?? `toolu_mock_${ctx.counter()}`, name: call.name, input: call.input });
      return { blocks, stop: "tool_use" };
    }
    case "slow":
      return { blocks: [{ type: "text", pieces: r.chunks }], stop: "end_turn" };
    default:
      return { blocks: [], stop: "end_turn" };
  }
}

async function serveMessages(req: RecordedRequest, res: http.ServerResponse, ctx: HandlerContext): Promise<void> {
  const r = replyFor(req, ctx, anthropicIsMain);
  if (await answeredCommon(r, req, res, ctx, ERRORS)) return;
  const model = String(req.body?.model ?? "claude-mock");
  const id = `msg_mock_${ctx.counter()}`;
  const inputTokens = approxTokens(req.body?.messages);
  const { blocks, stop } = blocksFor(r, req, ctx);
  const outputTokens = approxTokens(blocks);
  const usage = { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const signature = "bW9jay1zaWduYXR1cmU="; // "mock-signature"


  if (req.body?.stream !== true) {
    const content = blocks.map((b) =>
      b.type === "text"
        ? { type: "text", text: b.pieces.join("") }
        : b.type === "thinking"
          ? { type: "thinking", thinking: b.pieces.join(""), signature }
          : { type: "tool_use", id: b.id, name: b.name, input: b.input },
    );
    sendJson(res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { ...usage, output_tokens: outputTokens },
    });
    return;
  }

  const w = new StreamWriter(res, 200, { "content-type": "text/event-stream; charset=utf-8", "request-id": `req_mock_${ctx.counter()}` });
  const delay = r.type === "slow" ? r.delayMs : 0;
  w.event("message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  w.event("ping", { type: "ping" });
  for (let index = 0; index < blocks.length; index++) {
    const b = blocks[index];
    if (b.type === "tool_use") {
      w.event("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
      });
      const json = JSON.stringify(b.input);
      for (const piece of chunkText(json, Math.max(1, Math.ceil(json.length / 2)))) {
        w.event("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
      }
    } else if (b.type === "thinking") {
      w.event("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      for (const piece of b.pieces) {
        w.event("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } });
      }
      w.event("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature } });
    } else {
      w.event("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const piece of b.pieces) {
        if (delay && !(await w.sleep(delay))) return;
        w.event("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
      }
    }
    w.event("content_block_stop", { type: "content_block_stop", index });
  }
  w.event("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  w.event("message_stop", { type: "message_stop" });
  w.end();
}

/** Image blocks (`{type: "image", source: {type: "base64", media_type, data}}`) of the messages, tool results included. */
export function anthropicImages(body: any): ImagePart[] {
  const out: ImagePart[] = [];
  const visit = (blocks: unknown): void => {
    if (!Array.isArray(blocks)) return;
    for (const b of blocks as any[]) {
      if (b?.type === "image" && b.source?.type === "base64") out.push(imagePart(String(b.source.media_type), String(b.source.data)));
      else if (b?.type === "tool_result") visit(b.content);
    }
  };
  for (const m of Array.isArray(body?.messages) ? body.messages : []) visit(m?.content);
  return out;
}

/**
 * Starts the mock. `script` is a queue of replies (or a function of the request) for the
 * main turns; see `reply` in common.ts.
 */
export function startAnthropicMock(script?: Script | MockOptions): Promise<ModelMock> {
  const opts: MockOptions = Array.isArray(script) || typeof script === "function" ? { script } : (script ?? {});
  return startMockServer("anthropic-mock", opts, async (req, res, ctx) => {
    const p = req.path.replace(/\/+$/, "") || "/";
    if (req.method === "HEAD" || (req.method === "GET" && p === "/")) {
      req.served = "probe";
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(req.method === "HEAD" ? undefined : "ok");
      return;
    }
    if (req.method === "POST" && p.endsWith("/v1/messages/count_tokens")) {
      req.served = "count_tokens";
      sendJson(res, 200, { input_tokens: approxTokens(req.body?.messages) + approxTokens(req.body?.system) });
      return;
    }
    if (req.method === "POST" && p.endsWith("/v1/messages")) return serveMessages(req, res, ctx);
    if (req.method === "GET" && /\/v1\/models(\/|$)/.test(p)) {
      req.served = "models";
      const models = ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"].map((id) => ({
        type: "model",
        id,
        display_name: id,
        created_at: "2025-01-01T00:00:00Z",
      }));
      const one = p.match(/\/v1\/models\/([^/]+)$/);
      if (one) return sendJson(res, 200, { type: "model", id: one[1], display_name: one[1], created_at: "2025-01-01T00:00:00Z" });
      sendJson(res, 200, { data: models, has_more: false, first_id: models[0].id, last_id: models[models.length - 1].id });
      return;
    }
    req.served = "404";
    sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `mock: no route for ${req.method} ${req.path}` } });
  }, anthropicImages);
}
