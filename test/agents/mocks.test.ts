// The model-API mocks on their own (no agent needed): scripted replies, recording, errors,
// and a slow stream that stops when the client goes away.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { startAnthropicMock } from "./mocks/anthropic.js";
import { reply, type ModelMock } from "./mocks/common.js";
import { startGeminiMock } from "./mocks/gemini.js";
import { startChatMock } from "./mocks/openai-chat.js";
import { startResponsesMock } from "./mocks/openai-responses.js";
import { RED_PNG } from "../helpers/png.js";

interface SseEvent {
  event?: string;
  data: any;
}

async function sse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; events: SseEvent[] }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  const events: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    if (!block.trim()) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (!data.length) continue;
    const d = data.join("\n");
    events.push({ event, data: d === "[DONE]" ? d : JSON.parse(d) });
  }
  return { status: res.status, events: res.status === 200 ? events : [{ data: JSON.parse(text) }] };
}

async function withMock<T>(start: Promise<ModelMock>, f: (m: ModelMock) => Promise<T>): Promise<T> {
  const m = await start;
  try {
    return await f(m);
  } finally {
    await m.close();
  }
}

/** Starts a slow stream, reads the first chunk, hangs up, and checks the mock noticed and stopped. */
async function checkSlowAbort(m: ModelMock, url: string, body: unknown): Promise<void> {
  const ac = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.ok(!first.done);
  const t0 = Date.now();
  ac.abort();
  await reader.cancel().catch(() => {});
  const rec = await m.waitFor((r) => r.served === "slow" && r.done === true, 5000);
  assert.equal(rec.clientAborted, true);
  assert.ok(Date.now() - t0 < 2000, "the mock stopped promptly");
}

const tools = {
  anthropic: [
    {
      name: "Bash",
      input_schema: { type: "object", properties: { command: { type: "string" }, description: { type: "string" } }, required: ["command"] },
    },
  ],
  responses: [
    { type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] } },
  ],
  chat: [
    {
      type: "function",
      function: {
        name: "run_shell_command",
        parameters: {
          type: "object",
          properties: { command: { type: "string" }, is_background: { type: "boolean" } },
          required: ["command", "is_background"],
        },
      },
    },
  ],
  gemini: [
    {
      functionDeclarations: [
        {
          name: "run_shell_command",
          parametersJsonSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
        },
      ],
    },
  ],
};

describe("anthropic mock", { timeout: 30_000 }, () => {
  const body = (stream = true) => ({
    model: "claude-x",
    stream,
    max_tokens: 100,
    messages: [{ role: "user", content: "hi" }],
    tools: tools.anthropic,
  });

  test("text, thinking, tool call, records requests without secrets", async () => {
    await withMock(startAnthropicMock([reply.text("Hello there"), reply.thinking("hmm", "Answer"), reply.shell("echo hi")]), async (m) => {
      const u = `${m.url}/v1/messages`;
      const a = await sse(u, body(), { "x-api-key": "secret-key" });
      assert.deepEqual(
        a.events.map((e) => e.event),
        [
          "message_start",
          "ping",
          "content_block_start",
          "content_block_delta",
          "content_block_delta",
          "content_block_delta",
          "content_block_stop",
          "message_delta",
          "message_stop",
        ],
      );
      const text = a.events
        .filter((e) => e.data.delta?.type === "text_delta")
        .map((e) => e.data.delta.text)
        .join("");
      assert.equal(text, "Hello there");
      const b = await sse(u, body());
      assert.ok(b.events.some((e) => e.data.delta?.type === "thinking_delta"));
      assert.ok(b.events.some((e) => e.data.delta?.type === "signature_delta"));
      const c = await sse(u, body());
      const start = c.events.find((e) => e.data.content_block?.type === "tool_use")!;
      assert.equal(start.data.content_block.name, "Bash");
      const json = c.events
        .filter((e) => e.data.delta?.type === "input_json_delta")
        .map((e) => e.data.delta.partial_json)
        .join("");
      assert.equal(JSON.parse(json).command, "echo hi");
      assert.equal(c.events.find((e) => e.event === "message_delta")!.data.delta.stop_reason, "tool_use");
      assert.equal(m.requests[0].headers["x-api-key"], "<redacted>");
      assert.equal(m.mainRequests().length, 3);
      // queue empty: fallback text
      const d = await sse(u, body());
      assert.equal(d.events.map((e) => e.data.delta?.text ?? "").join(""), "ok");
    });
  });

  test("probe, models, count_tokens, non-streaming, auxiliary request", async () => {
    await withMock(startAnthropicMock([reply.text("main")]), async (m) => {
      assert.equal((await fetch(m.url, { method: "HEAD" })).status, 200);
      const models = (await (await fetch(`${m.url}/v1/models`)).json()) as any;
      assert.ok(Array.isArray(models.data) && models.data.length > 0);
      const ct = (await (
        await fetch(`${m.url}/v1/messages/count_tokens`, { method: "POST", body: JSON.stringify({ messages: [] }) })
      ).json()) as any;
      assert.equal(typeof ct.input_tokens, "number");
      const aux = (await (
        await fetch(`${m.url}/v1/messages`, { method: "POST", body: JSON.stringify({ model: "x", messages: [] }) })
      ).json()) as any;
      assert.equal(aux.type, "message");
      assert.equal(m.pending(), 1, "an auxiliary request does not consume the script");
      assert.equal(m.requests.at(-1)!.role, "aux");
    });
  });

  test("API error with the API's error JSON; sticky error", async () => {
    await withMock(startAnthropicMock([{ ...reply.error(529, "Overloaded"), sticky: true }]), async (m) => {
      for (let i = 0; i < 2; i++) {
        const r = await sse(`${m.url}/v1/messages`, body());
        assert.equal(r.status, 529);
        assert.deepEqual(r.events[0].data, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
      }
    });
  });

  test("slow stream stops when the client disconnects", async () => {
    await withMock(startAnthropicMock([reply.slow(["a", "b", "c", "d", "e", "f"], 1000)]), (m) =>
      checkSlowAbort(m, `${m.url}/v1/messages`, body()),
    );
  });
});

describe("responses mock", { timeout: 30_000 }, () => {
  const body = { model: "gpt-5.5", stream: true, input: [{ role: "user", content: "hi" }], tools: tools.responses };

  test("text, reasoning, exec_command call, usage", async () => {
    await withMock(startResponsesMock([reply.text("Hi"), reply.thinking("think", "Ans"), reply.shell("ls")]), async (m) => {
      const u = `${m.url}/v1/responses`;
      const a = await sse(u, body);
      assert.equal(a.events[0].event, "response.created");
      assert.equal(a.events.at(-1)!.event, "response.completed");
      assert.ok(a.events.every((e) => e.event === e.data.type));
      assert.equal(
        a.events
          .filter((e) => e.event === "response.output_text.delta")
          .map((e) => e.data.delta)
          .join(""),
        "Hi",
      );
      assert.equal(typeof a.events.at(-1)!.data.response.usage.input_tokens, "number");
      const b = await sse(u, body);
      assert.ok(b.events.some((e) => e.event === "response.reasoning_summary_text.delta"));
      const c = await sse(u, body);
      const done = c.events.find((e) => e.event === "response.output_item.done" && e.data.item.type === "function_call")!;
      assert.equal(done.data.item.name, "exec_command");
      assert.deepEqual(JSON.parse(done.data.item.arguments), { cmd: "ls" });
    });
  });

  test("error and slow-stream abort", async () => {
    await withMock(startResponsesMock([reply.error(400, "bad"), reply.slow(["a", "b", "c"], 1000)]), async (m) => {
      const e = await sse(`${m.url}/v1/responses`, body);
      assert.equal(e.status, 400);
      assert.equal(e.events[0].data.error.message, "bad");
      await checkSlowAbort(m, `${m.url}/v1/responses`, body);
    });
  });
});

describe("chat completions mock", { timeout: 30_000 }, () => {
  const body = { model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: tools.chat };

  test("text, reasoning_content, tool call with required args, [DONE]", async () => {
    await withMock(startChatMock([reply.text("Hi"), reply.thinking("think", "Ans"), reply.shell("ls")]), async (m) => {
      const u = `${m.url}/v1/chat/completions`;
      const a = await sse(u, body);
      assert.equal(a.events.at(-1)!.data, "[DONE]");
      const chunks = a.events.filter((e) => e.data !== "[DONE]");
      assert.equal(chunks.map((e) => e.data.choices[0]?.delta?.content ?? "").join(""), "Hi");
      assert.ok(chunks.some((e) => e.data.usage));
      const b = await sse(u, body);
      assert.ok(b.events.some((e) => e.data.choices?.[0]?.delta?.reasoning_content));
      const c = await sse(u, body);
      const calls = c.events.flatMap((e) => e.data.choices?.[0]?.delta?.tool_calls ?? []);
      assert.equal(calls[0].function.name, "run_shell_command");
      assert.deepEqual(JSON.parse(calls.map((x: any) => x.function.arguments).join("")), { command: "ls", is_background: false });
      assert.ok(c.events.some((e) => e.data.choices?.[0]?.finish_reason === "tool_calls"));
    });
  });

  test("auxiliary JSON-schema request; error; slow-stream abort", async () => {
    await withMock(startChatMock([reply.error(429, "slow down"), reply.slow(["a", "b", "c"], 1000)]), async (m) => {
      const u = `${m.url}/v1/chat/completions`;
      const aux = (await (
        await fetch(u, {
          method: "POST",
          body: JSON.stringify({
            model: "m",
            messages: [],
            response_format: {
              type: "json_schema",
              json_schema: { schema: { type: "object", properties: { next_speaker: { enum: ["model", "user"] } } } },
            },
          }),
        })
      ).json()) as any;
      assert.deepEqual(JSON.parse(aux.choices[0].message.content), { next_speaker: "user" });
      const e = await sse(u, body);
      assert.equal(e.status, 429);
      assert.equal(e.events[0].data.error.type, "rate_limit_exceeded");
      await checkSlowAbort(m, u, body);
    });
  });
});

describe("gemini mock", { timeout: 30_000 }, () => {
  const body = { contents: [{ role: "user", parts: [{ text: "hi" }] }], tools: tools.gemini };
  const stream = (m: ModelMock) => `${m.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`;

  test("text, thought parts, functionCall, usage", async () => {
    await withMock(startGeminiMock([reply.text("Hi there"), reply.thinking("think", "Ans"), reply.shell("ls")]), async (m) => {
      const a = await sse(stream(m), body);
      assert.equal(a.events.map((e) => e.data.candidates[0].content.parts[0].text).join(""), "Hi there");
      assert.equal(a.events.at(-1)!.data.candidates[0].finishReason, "STOP");
      assert.equal(typeof a.events.at(-1)!.data.usageMetadata.totalTokenCount, "number");
      const b = await sse(stream(m), body);
      assert.ok(b.events.some((e) => e.data.candidates[0].content.parts[0].thought === true));
      const c = await sse(stream(m), body);
      const fc = c.events.at(-1)!.data.candidates[0].content.parts[0].functionCall;
      assert.equal(fc.name, "run_shell_command");
      assert.equal(fc.args.command, "ls");
      assert.equal(m.requests[0].query.alt, "sse");
    });
  });

  test("generateContent answers JSON for a schema (router), countTokens, error, slow abort", async () => {
    await withMock(startGeminiMock([reply.error(400, "bad request"), reply.slow(["a", "b", "c"], 1000)]), async (m) => {
      const gen = (await (
        await fetch(`${m.url}/v1beta/models/gemini-2.5-flash-lite:generateContent`, {
          method: "POST",
          body: JSON.stringify({
            contents: [],
            generationConfig: {
              responseMimeType: "application/json",
              responseJsonSchema: {
                type: "object",
                properties: { reasoning: { type: "string" }, model_choice: { type: "string", enum: ["pro", "flash"] } },
              },
            },
          }),
        })
      ).json()) as any;
      assert.deepEqual(JSON.parse(gen.candidates[0].content.parts[0].text), { reasoning: "Mock reasoning.", model_choice: "flash" });
      const ct = (await (await fetch(`${m.url}/v1beta/models/gemini-2.5-flash:countTokens`, { method: "POST", body: "{}" })).json()) as any;
      assert.equal(typeof ct.totalTokens, "number");
      const e = await sse(stream(m), body);
      assert.equal(e.status, 400);
      assert.equal(e.events[0].data.error.status, "INVALID_ARGUMENT");
      await checkSlowAbort(m, stream(m), body);
    });
  });
});

test("a script function sees each main request and its index", async () => {
  await withMock(startChatMock({ script: (req, i) => reply.text(`answer ${i} to ${req.body.messages.length} messages`) }), async (m) => {
    const body = { model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: tools.chat };
    const a = await sse(`${m.url}/v1/chat/completions`, body);
    const text = a.events
      .filter((e) => e.data !== "[DONE]")
      .map((e) => e.data.choices[0]?.delta?.content ?? "")
      .join("");
    assert.equal(text, "answer 0 to 1 messages");
    assert.throws(() => m.push(reply.text("x")));
  });
});

describe("image parts in the request log", { timeout: 30_000 }, () => {
  const png = Buffer.from(RED_PNG, "base64");
  const post = (url: string, body: unknown) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) }).then((r) => r.text());
  const expect = (m: ModelMock, mimeType: string) => {
    const imgs = m.mainRequests()[0].images;
    assert.equal(imgs.length, 1, JSON.stringify(imgs));
    assert.equal(imgs[0].mimeType, mimeType);
    assert.equal(imgs[0].data, RED_PNG);
    assert.equal(imgs[0].bytes, png.length);
  };

  test("anthropic: an image block (and none in a text-only request)", async () => {
    await withMock(startAnthropicMock(), async (m) => {
      const image = { type: "image", source: { type: "base64", media_type: "image/png", data: RED_PNG } };
      await post(`${m.url}/v1/messages`, { model: "c", stream: true, max_tokens: 10, tools: tools.anthropic, messages: [{ role: "user", content: [{ type: "text", text: "what?" }, image] }] });
      expect(m, "image/png");
      await post(`${m.url}/v1/messages`, { model: "c", stream: true, max_tokens: 10, tools: tools.anthropic, messages: [{ role: "user", content: "hi" }] });
      assert.deepEqual(m.mainRequests()[1].images, []);
    });
  });

  test("responses: an input_image data URL", async () => {
    await withMock(startResponsesMock(), async (m) => {
      const content = [{ type: "input_text", text: "what?" }, { type: "input_image", image_url: `data:image/png;base64,${RED_PNG}` }];
      await post(`${m.url}/v1/responses`, { model: "g", stream: true, tools: tools.responses, input: [{ type: "message", role: "user", content }] });
      expect(m, "image/png");
    });
  });

  test("chat completions: an image_url part", async () => {
    await withMock(startChatMock(), async (m) => {
      const content = [{ type: "text", text: "what?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${RED_PNG}` } }];
      await post(`${m.url}/v1/chat/completions`, { model: "m", stream: true, tools: tools.chat, messages: [{ role: "user", content }] });
      expect(m, "image/png");
    });
  });

  test("gemini: an inlineData part", async () => {
    await withMock(startGeminiMock(), async (m) => {
      const parts = [{ text: "what?" }, { inlineData: { mimeType: "image/png", data: RED_PNG } }];
      await post(`${m.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, { tools: tools.gemini, contents: [{ role: "user", parts }] });
      expect(m, "image/png");
    });
  });
});
