// R-OTEL-1/3 with the real codex app-server: a turn with a shell command that needs approval,
// exported to a loopback OTLP receiver — the turn span, the tool span under it, the
// permission wait decided by the host, usage as codex reported it, and no key in any byte.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { attr, otlpReceiver } from "../../helpers/otlp-receiver.js";
import { finish, reply, skip, startCodex } from "../helpers/codex-rpc.js";

test("R-OTEL-1: codex app-server turn with an approved command: invoke_agent ⊃ execute_tool, permission span, usage; R-OTEL-3 no key", { skip }, async () => {
  const otlp = await otlpReceiver();
  after(() => otlp.close());
  const r = await startCodex([reply.shell("touch traced.txt"), reply.text("done")], {
    args: ["--otel-endpoint", otlp.url],
    onPermission: () => ({ result: { selected: "accept" } }),
  });
  const sid = await r.open();
  const out = await r.h.ok("session/prompt", { sessionId: sid, text: "make a file", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
  assert.equal(out.stopReason, "endTurn");
  await finish(r);
  const spans = otlp.spans();
  const names = spans.map((s) => s.name);
  const turn = spans.find((s) => s.name === "invoke_agent codex");
  assert.ok(turn, names.join(", "));
  assert.equal(turn.traceId, "0af7651916cd43dd8448eb211c80319c");
  assert.equal(turn.parentSpanId, "b7ad6b7169203331");
  assert.equal(attr(turn, "gen_ai.provider.name"), "openai");
  assert.equal(attr(turn, "a4aa.lane"), "rpc");
  assert.ok(Number(attr(turn, "gen_ai.usage.input_tokens")) > 0, "codex's usage");
  const tool = spans.find((s) => s.name === "execute_tool execute");
  assert.ok(tool, names.join(", "));
  assert.equal(tool.parentSpanId, turn.spanId);
  const wait = spans.find((s) => s.name === "permission execute");
  assert.ok(wait, names.join(", "));
  assert.equal(attr(wait, "a4aa.permission.decided_by"), "host");
  assert.equal(attr(wait, "a4aa.permission.option_id"), "accept");
  const open = spans.find((s) => s.name === "create_agent codex");
  assert.ok(open);
  assert.deepEqual(spans.filter((s) => s.parentSpanId === open.spanId).map((s) => s.name).sort(), ["handshake initialize", "handshake thread/start"]);
  assert.ok(!otlp.raw().includes("sk-mock-key"), "the agent's key is in no exported byte");
  console.log(`codex spans: ${names.join(", ")}`);
});
