// Mock of the OpenAI Responses API (Codex, codex-acp): `POST /v1/responses` (SSE), `GET /v1/models`.
import type http from "node:http";
import { OPENAI_ERRORS } from "./openai-chat.js";
import type { HandlerContext, ImagePart, MockOptions, ModelMock, RecordedRequest, Reply, Script } from "./common.js";
import { answeredCommon, offersTools, approxTokens, chunkText, sendJson, startMockServer, StreamWriter, imageFromDataUrl, shellArgs, replyFor, serveOpenAiRest } from "./common.js";

export type { ModelMock } from "./common.js";


function toolName(t: any): string {
  return String(t?.name ?? t?.function?.name ?? t?.type ?? "");
}

/** A main turn offers tools; auxiliary requests (titles, summaries…) offer none. */
export const responsesIsMain = offersTools;

/** Picks the shell tool the request offers and builds its arguments from its schema. */
export function responsesShellCall(req: RecordedRequest, command: string): { name: string; args: Record<string, unknown> } {
  const tools: any[] = Array.isArray(req.body?.tools) ? req.body.tools : [];
  const t = ["exec_command", "shell_command", "shell"].map((n) => tools.find((x) => toolName(x) === n)).find(Boolean);
  if (!t) return { name: "exec_command", args: { cmd: command } };
  return { name: toolName(t), args: shellArgs(t.parameters, command) };
}

async function serveResponses(req: RecordedRequest, res: http.ServerResponse, ctx: HandlerContext): Promise<void> {
  const r = replyFor(req, ctx, responsesIsMain);
  if (await answeredCommon(r, req, res, ctx, OPENAI_ERRORS)) return;
  const model = String(req.body?.model ?? "gpt-mock");
  const respId = `resp_mock_${ctx.counter()}`;
  const w = new StreamWriter(res, 200, { "content-type": "text/event-stream; charset=utf-8", "x-request-id": `req_mock_${ctx.counter()}` });
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) => w.event(type, { type, sequence_number: seq++, ...data });
  const output: unknown[] = [];
  const base = { id: respId, object: "response", created_at: Math.floor(Date.now() / 1000), model };
  send("response.created", { response: { ...base, status: "in_progress", output: [] } });
  send("response.in_progress", { response: { ...base, status: "in_progress", output: [] } });

  const delay = r.type === "slow" ? r.delayMs : 0;
  const message = async (pieces: string[]): Promise<boolean> => {
    const output_index = output.length;
    const item_id = `msg_mock_${ctx.counter()}`;
    send("response.output_item.added", {
      output_index,
      item: { id: item_id, type: "message", status: "in_progress", role: "assistant", content: [] },
    });
    send("response.content_part.added", {
      item_id,
      output_index,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (const delta of pieces) {
      if (delay && !(await w.sleep(delay))) return false;
      send("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
    }
    const text = pieces.join("");
    send("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] });
    const part = { type: "output_text", text, annotations: [], logprobs: [] };
    send("response.content_part.done", { item_id, output_index, content_index: 0, part });
    const item = { id: item_id, type: "message", status: "completed", role: "assistant", content: [part] };
    output.push(item);
    send("response.output_item.done", { output_index, item });
    return true;
  };
  const reasoning = (pieces: string[]) => {
    const output_index = output.length;
    const item_id = `rs_mock_${ctx.counter()}`;
    send("response.output_item.added", { output_index, item: { id: item_id, type: "reasoning", summary: [] } });
    send("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } });
    for (const delta of pieces) send("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta });
    const text = pieces.join("");
    send("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text });
    send("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text } });
    const item = { id: item_id, type: "reasoning", summary: [{ type: "summary_text", text }] };
    output.push(item);
    send("response.output_item.done", { output_index, item });
  };
  // A name `ns/tool` calls `tool` of the Responses `namespace` tool `ns` (Codex offers an MCP
  // server's tools so: `mcp__<server>/echo`).
  const functionCall = (qualified: string, args: Record<string, unknown>, callId: string) => {
    const slash = qualified.indexOf("/");
    const name = slash < 0 ? qualified : qualified.slice(slash + 1);
    const ns = slash < 0 ? {} : { namespace: qualified.slice(0, slash) };
    const output_index = output.length;
    const item_id = `fc_mock_${ctx.counter()}`;
    const argStr = JSON.stringify(args);
    send("response.output_item.added", {
      output_index,
      item: { id: item_id, type: "function_call", status: "in_progress", name, ...ns, call_id: callId, arguments: "" },
    });
    send("response.function_call_arguments.delta", { item_id, output_index, delta: argStr });
    send("response.function_call_arguments.done", { item_id, output_index, arguments: argStr });
    const item = { id: item_id, type: "function_call", status: "completed", name, ...ns, call_id: callId, arguments: argStr };
    output.push(item);
    send("response.output_item.done", { output_index, item });
  };

  switch (r.type) {
    case "text":
      await message(chunkText(r.text, r.chunkSize));
      break;
    case "thinking":
      reasoning(chunkText(r.thinking));
      await message(chunkText(r.text));
      break;
    case "slow":
      if (!(await message(r.chunks))) return;
      break;
    case "tool": {
      if (r.text) await message(chunkText(r.text));
      const call = r.command !== undefined ? responsesShellCall(req, r.command) : { name: r.name ?? "exec_command", args: r.args ?? {} };
      functionCall(call.name, call.args, r.id ?? `call_mock_${ctx.counter()}`);
      break;
    }
  }
  const input_tokens = approxTokens(req.body?.input) + approxTokens(req.body?.instructions);
  const output_tokens = approxTokens(output);
  send("response.completed", {
    response: {
      ...base,
      status: "completed",
      output,
      usage: {
        input_tokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens,
        output_tokens_details: { reasoning_tokens: r.type === "thinking" ? approxTokens(r.thinking) : 0 },
        total_tokens: input_tokens + output_tokens,
      },
    },
  });
  w.end();
}

/** `input_image` parts (`image_url: "data:…"`) of the input items, tool outputs included. */
export function responsesImages(body: any): ImagePart[] {
  const out: ImagePart[] = [];
  const visit = (parts: unknown): void => {
    if (!Array.isArray(parts)) return;
    for (const p of parts as any[]) {
      if (p?.type === "input_image") {
        const img = imageFromDataUrl(typeof p.image_url === "string" ? p.image_url : p.image_url?.url);
        if (img) out.push(img);
      }
    }
  };
  for (const item of Array.isArray(body?.input) ? body.input : []) {
    visit(item?.content);
    visit(item?.output);
  }
  return out;
}

export function startResponsesMock(script?: Script | MockOptions): Promise<ModelMock> {
  const opts: MockOptions = Array.isArray(script) || typeof script === "function" ? { script } : (script ?? {});
  return startMockServer("responses-mock", opts, async (req, res, ctx) => {
    const p = req.path.replace(/\/+$/, "") || "/";
    if (req.method === "POST" && p.endsWith("/responses")) return serveResponses(req, res, ctx);
    serveOpenAiRest(req, res, ["gpt-5.5", "gpt-5", "gpt-5-codex"]);
  }, responsesImages);
}
