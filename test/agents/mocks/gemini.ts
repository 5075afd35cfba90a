// Mock of the Gemini API (Gemini CLI, `gemini --acp`):
// `POST /v1beta/models/<m>:streamGenerateContent?alt=sse` (the conversation),
// `:generateContent` (auxiliary JSON answers: model router, next-speaker check…),
// `:countTokens`, `GET /v1beta/models`.
import type http from "node:http";
import type { ApiErrors, HandlerContext, ImagePart, MockOptions, ModelMock, RecordedRequest, Reply, Script } from "./common.js";
import { answeredCommon, approxTokens, chunkText, sendJson, startMockServer, StreamWriter, imagePart, shellArgs, valueForSchema, replyFor, probeOr404 } from "./common.js";

export type { ModelMock } from "./common.js";

const ERRORS: ApiErrors = {
  types: { 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE" },
  fallback: "UNKNOWN",
  body: (r, message, status) => ({ error: { code: r.status, message, status } }),
};

function declaredTools(req: RecordedRequest): string[] {
  const tools: any[] = Array.isArray(req.body?.tools) ? req.body.tools : [];
  const names: string[] = [];
  for (const t of tools) for (const d of t?.functionDeclarations ?? []) names.push(String(d?.name));
  return names;
}

/** A main turn is a streamed request that declares tools. */
export function geminiIsMain(req: RecordedRequest): boolean {
  return req.path.includes(":streamGenerateContent") && declaredTools(req).length > 0;
}

function shellCall(req: RecordedRequest, command: string): { name: string; args: Record<string, unknown> } {
  const decls: any[] = [];
  for (const t of Array.isArray(req.body?.tools) ? req.body.tools : []) decls.push(...(t?.functionDeclarations ?? []));
  const d = decls.find((x) => x?.name === "run_shell_command") ?? decls.find((x) => /shell|bash/i.test(String(x?.name)));
  return { name: d?.name ?? "run_shell_command", args: shellArgs(d?.parametersJsonSchema ?? d?.parameters, command) };
}

function usage(req: RecordedRequest, out: unknown) {
  const prompt = approxTokens(req.body?.contents) + approxTokens(req.body?.systemInstruction);
  const cand = approxTokens(out);
  return { promptTokenCount: prompt, candidatesTokenCount: cand, totalTokenCount: prompt + cand };
}

function modelOf(req: RecordedRequest): string {
  const m = req.path.match(/models\/([^/:]+):/);
  return m ? m[1] : "gemini-mock";
}


async function serveStream(req: RecordedRequest, res: http.ServerResponse, ctx: HandlerContext): Promise<void> {
  const r = replyFor(req, ctx, geminiIsMain);
  if (await answeredCommon(r, req, res, ctx, ERRORS)) return;
  const modelVersion = modelOf(req);
  const responseId = `mock-${ctx.counter()}`;
  const w = new StreamWriter(res);
  const all: unknown[] = [];
  const chunk = (parts: unknown[], finish?: string) => {
    all.push(...parts);
    const cand: Record<string, unknown> = { content: { role: "model", parts }, index: 0 };
    if (finish) cand.finishReason = finish;
    const body: Record<string, unknown> = { candidates: [cand], modelVersion, responseId };
    if (finish) body.usageMetadata = usage(req, all);
    w.event(null, body);
  };
  const texts = async (pieces: string[], delay = 0): Promise<boolean> => {
    for (let i = 0; i < pieces.length; i++) {
      if (delay && !(await w.sleep(delay))) return false;
      chunk([{ text: pieces[i] }], i === pieces.length - 1 ? "STOP" : undefined);
    }
    return true;
  };
  switch (r.type) {
    case "text":
      await texts(chunkText(r.text, r.chunkSize));
      break;
    case "thinking":
      // Like the real API's thought summaries: one part, "**Subject**\n\nbody" (Gemini CLI
      // parses each thought part into subject and description).
      chunk([{ text: `**Thinking**\n\n${r.thinking}`, thought: true }]);
      await texts(chunkText(r.text));
      break;
    case "slow":
      if (!(await texts(r.chunks, r.delayMs))) return;
      break;
    case "tool": {
      if (r.text) chunk([{ text: r.text }]);
      const call = r.command !== undefined ? shellCall(req, r.command) : { name: r.name ?? "run_shell_command", args: r.args ?? {} };
      chunk([{ functionCall: { id: r.id ?? `call_mock_${ctx.counter()}`, name: call.name, args: call.args } }], "STOP");
      break;
    }
  }
  w.end();
}

function serveGenerate(req: RecordedRequest, res: http.ServerResponse, ctx: HandlerContext): void | Promise<void> {
  // Scripted only when the test says so (isMain); otherwise an auxiliary JSON or text answer.
  if (ctx.isMain?.(req)) {
    const r = ctx.next();
    if (r.type === "custom" || r.type === "error") return answeredCommon(r, req, res, ctx, ERRORS).then(() => undefined);
    const text = r.type === "text" || r.type === "thinking" ? r.text : r.type === "slow" ? r.chunks.join("") : "";
    const parts =
      r.type === "tool" ? [{ functionCall: { name: r.name ?? "run_shell_command", args: r.args ?? { command: r.command } } }] : [{ text }];
    return sendJson(res, 200, {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: usage(req, parts),
      modelVersion: modelOf(req),
    });
  }
  req.role = "aux";
  const gc = req.body?.generationConfig ?? req.body?.config ?? {};
  const schema = gc.responseJsonSchema ?? gc.responseSchema;
  let text: string;
  if (schema) {
    text = JSON.stringify(valueForSchema(schema));
    req.served = "aux-json";
  } else if (gc.responseMimeType === "application/json") {
    text = "{}";
    req.served = "aux-json";
  } else {
    text = "Mock reply";
    req.served = "aux-text";
  }
  const parts = [{ text }];
  sendJson(res, 200, {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: usage(req, parts),
    modelVersion: modelOf(req),
    responseId: `mock-${ctx.counter()}`,
  });
}

/** `inlineData` parts of the contents whose mime type is an image, function responses included. */
export function geminiImages(body: any): ImagePart[] {
  const out: ImagePart[] = [];
  const visit = (parts: unknown): void => {
    if (!Array.isArray(parts)) return;
    for (const p of parts as any[]) {
      const d = p?.inlineData;
      if (d && typeof d.data === "string" && /^image\//.test(String(d.mimeType))) out.push(imagePart(String(d.mimeType), d.data));
      if (p?.functionResponse?.parts) visit(p.functionResponse.parts);
    }
  };
  for (const c of Array.isArray(body?.contents) ? body.contents : []) visit(c?.parts);
  return out;
}

export function startGeminiMock(script?: Script | MockOptions): Promise<ModelMock> {
  const opts: MockOptions = Array.isArray(script) || typeof script === "function" ? { script } : (script ?? {});
  return startMockServer("gemini-mock", opts, async (req, res, ctx) => {
    const p = req.path;
    if (req.method === "POST" && p.endsWith(":streamGenerateContent")) return serveStream(req, res, ctx);
    if (req.method === "POST" && p.endsWith(":generateContent")) return serveGenerate(req, res, ctx);
    if (req.method === "POST" && p.endsWith(":countTokens")) {
      req.served = "countTokens";
      return sendJson(res, 200, { totalTokens: approxTokens(req.body?.contents) });
    }
    if (req.method === "POST" && p.endsWith(":embedContent")) {
      req.served = "embed";
      return sendJson(res, 200, { embedding: { values: [0, 0, 0, 0] } });
    }
    if (req.method === "GET" && /\/models\/?$/.test(p)) {
      req.served = "models";
      return sendJson(res, 200, {
        models: ["gemini-2.5-flash", "gemini-2.5-pro"].map((m) => ({
          name: `models/${m}`,
          displayName: m,
          supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
        })),
      });
    }
    probeOr404(req, res, (message) => ERRORS.body({ type: "error", status: 404 }, message, ERRORS.types[404]));
  }, geminiImages);
}
