// R-OTEL-2 with the real codex: the turn's context goes to codex app-server as the `trace`
// member of its turn/start request, to codex exec as TRACEPARENT, and codex — exporting its own spans (its [otel]
// trace_exporter, to the same loopback receiver) — continues that trace: its spans carry the
// host's trace id under a4aa's invoke_agent span. Measured, so the README can say codex honours it.
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { otlpReceiver } from "../../helpers/otlp-receiver.js";
import { finish, reply, skip, startCodex } from "../helpers/codex-rpc.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const HOST_SPAN = "00f067aa0ba902b7";

async function tracedTurn(lane: "rpc" | "cli"): Promise<void> {
  const otlp = await otlpReceiver();
  after(() => otlp.close());
  const r = await startCodex([reply.text("traced")], { args: ["--otel-endpoint", otlp.url] });
  appendFileSync(
    path.join(r.run.home, ".codex", "config.toml"),
    `\n[otel]\nexporter = "none"\nmetrics_exporter = "none"\ntrace_exporter = { otlp-http = { endpoint = "${otlp.url}/v1/traces", protocol = "json" } }\n`,
  );
  const sid = lane === "rpc" ? await r.open() : await openCli(r);
  const out = await r.h.ok("session/prompt", { sessionId: sid, text: "hello", traceparent: `00-${TRACE_ID}-${HOST_SPAN}-01` });
  assert.equal(out.stopReason, "endTurn");
  await finish(r);
  // codex flushes its batch at exit; give a late POST a moment.
  const deadline = Date.now() + 10_000;
  const codexSpans = () => otlp.spans().filter((s) => s.traceId === TRACE_ID && !/^(invoke_agent|create_agent|execute_tool|permission) /.test(s.name));
  while (!codexSpans().length && Date.now() < deadline) await new Promise((res) => setTimeout(res, 200));
  const spans = otlp.spans();
  const turn = spans.find((s) => s.name === "invoke_agent codex");
  assert.ok(turn, spans.map((s) => s.name).join(", "));
  assert.equal(turn.traceId, TRACE_ID);
  assert.equal(turn.parentSpanId, HOST_SPAN);
  const mine = codexSpans();
  console.log(`codex ${lane}: ${mine.length} spans in the host's trace, e.g. ${[...new Set(mine.map((s) => s.name))].slice(0, 8).join(", ")}`);
  assert.ok(mine.length > 0, `codex exported no span in the host's trace (${spans.length} spans: ${[...new Set(spans.map((s) => s.name))].slice(0, 30).join(", ")})`);
  const ids = new Set(mine.map((s) => s.spanId));
  const roots = mine.filter((s) => !ids.has(s.parentSpanId));
  const under = roots.filter((s) => s.parentSpanId === turn.spanId);
  assert.ok(under.length > 0, `codex's top span hangs under invoke_agent (${turn.spanId}): ${roots.map((s) => `${s.name}<${s.parentSpanId}`).join(", ")}`);
  // app-server: every top span is under the turn. exec: some of its spans' parents are its own
  // process-long spans, still open (so not exported) when it exits.
  if (lane === "rpc") assert.deepEqual(roots.filter((s) => s.parentSpanId !== turn.spanId).map((s) => s.name), []);
  assert.ok(!otlp.raw().includes("sk-mock-key"), "the agent's key is in no exported byte");
}

test("R-OTEL-2: codex app-server continues the turn's trace (turn/start `trace`): its spans sit under a4aa's invoke_agent", { skip, timeout: 180_000 }, () => tracedTurn("rpc"));

test("R-OTEL-2: codex exec continues the turn's trace (TRACEPARENT in its environment): its spans sit under a4aa's invoke_agent", { skip, timeout: 180_000 }, () => tracedTurn("cli"));

async function openCli(r: Awaited<ReturnType<typeof startCodex>>): Promise<string> {
  const command = r.run.command();
  if (command.env.policy === "sanitized") command.env.set = { ...command.env.set, A4AA_TEST_MARKER: r.marker };
  return r.h.open({ id: "codex", lane: "cli", driver: "codex", command }, { cwd: r.run.cwd });
}
