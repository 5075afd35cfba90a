// R-OTEL-1/2/3 through a real `a4aa serve --otel-endpoint` and a loopback OTLP/HTTP receiver:
// the spans of an open, a turn (child of the host's traceparent), its tool call and its
// permission wait, with the GenAI attributes; no secret in any exported byte; texts only
// with --otel-content. Without configuration, no exporter module is loaded.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { attr, otlpReceiver } from "../helpers/otlp-receiver.js";
import { fakeAgentSpec, sidecarSetup, waitNoProcesses } from "../helpers/sidecar.js";

const setup = sidecarSetup();
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const SECRET = "sk-otel-secret-4242";

async function traced(args: string[]) {
  const otlp = await otlpReceiver();
  after(() => otlp.close());
  const { s, marker } = setup(["--otel-endpoint", otlp.url, ...args]);
  const spec = fakeAgentSpec(marker);
  (spec.command.env as { set: Record<string, string> }).set.AGENT_API_KEY = SECRET;
  const sid = await s.open(spec, { options: { permission: "bypass" } });
  const r = await s.ok("session/prompt", { sessionId: sid, text: `tool;permission;usage;text:done with ${SECRET}`, traceparent: `00-${TRACE}-${PARENT}-01` });
  assert.equal(r.stopReason, "endTurn");
  assert.equal(await s.end(), 0, "the spans are flushed at shutdown");
  assert.deepEqual(await waitNoProcesses(marker), []);
  return { all: otlp.spans(), raw: otlp.raw(), metrics: otlp.bodies.filter((b) => b.path === "/v1/metrics").map((b) => JSON.parse(b.body)) };
}

test("R-OTEL-1, R-OTEL-2: open, turn (child of the host's span), tool call and permission wait as GenAI spans; metrics", async () => {
  const { all, raw, metrics } = await traced([]);
  const open = all.find((s) => s.name === "create_agent fake");
  assert.ok(open, `spans: ${all.map((s) => s.name).join(", ")}`);
  assert.equal(attr(open, "a4aa.lane"), "acp");
  // The handshake's requests as the open's children, in order (R-OTEL-1: spawn and handshake).
  const steps = all.filter((s) => s.parentSpanId === open.spanId).sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
  assert.deepEqual(steps.map((s) => s.name), ["handshake initialize", "handshake session/new"]);
  assert.ok(steps.every((s) => s.traceId === open.traceId && attr(s, "error.type") === undefined));
  const turn = all.find((s) => s.name === "invoke_agent fake");
  assert.ok(turn);
  assert.equal(turn.traceId, TRACE, "the host's trace");
  assert.equal(turn.parentSpanId, PARENT, "a child of the host's span");
  assert.equal(turn.kind, 3);
  assert.equal(attr(turn, "gen_ai.operation.name"), "invoke_agent");
  assert.equal(attr(turn, "gen_ai.agent.name"), "fake");
  assert.equal(attr(turn, "a4aa.stop_reason"), "endTurn");
  assert.equal(attr(turn, "gen_ai.usage.input_tokens"), "100");
  assert.equal(attr(turn, "gen_ai.usage.output_tokens"), "20");
  assert.ok(attr(turn, "gen_ai.conversation.id"));
  assert.ok(BigInt(turn.endTimeUnixNano) >= BigInt(turn.startTimeUnixNano));
  const tools = all.filter((s) => s.name.startsWith("execute_tool "));
  assert.ok(tools.length >= 1);
  for (const t of tools) assert.equal(t.parentSpanId, turn.spanId);
  const wait = all.find((s) => s.name.startsWith("permission "));
  assert.ok(wait, "the permission wait");
  assert.equal(wait.traceId, TRACE);
  assert.equal(attr(wait, "a4aa.permission.decided_by"), "policy");
  assert.equal(attr(wait, "a4aa.permission.outcome"), "selected");
  // Metrics: the numbers /metrics serves, sent at shutdown at the latest.
  const last = metrics.at(-1).resourceMetrics[0].scopeMetrics[0].metrics;
  const turns = last.find((m: any) => m.name === "a4aa_turn_duration_seconds");
  assert.equal(turns.histogram.dataPoints[0].count, "1");
  assert.equal(turns.histogram.dataPoints[0].bucketCounts.length, turns.histogram.dataPoints[0].explicitBounds.length + 1);
  const tokens = last.find((m: any) => m.name === "a4aa_tokens_total");
  assert.equal(tokens.sum.isMonotonic, true);
  assert.ok(tokens.sum.dataPoints.some((p: any) => p.asDouble === 100 && p.attributes.some((a: any) => a.value.stringValue === "input")), JSON.stringify(tokens));
  // R-OTEL-3: no secret, and no text without --otel-content.
  assert.ok(!raw.includes(SECRET), "the agent's credential is in no exported byte");
  assert.ok(!raw.includes("done with"), "no reply text without --otel-content");
  assert.equal(attr(turn, "gen_ai.input.messages"), undefined);
});

test("R-OTEL-3: with --otel-content the texts are exported, redacted", async () => {
  const { all, raw } = await traced(["--otel-content"]);
  const turn = all.find((s) => s.name === "invoke_agent fake");
  assert.match(String(attr(turn, "gen_ai.output.messages")), /done with <redacted/);
  assert.match(String(attr(turn, "gen_ai.input.messages")), /tool;permission/);
  assert.ok(!raw.includes(SECRET));
});

test("R-OTEL-1: without configuration no exporter module is imported statically (loaded only by serve when configured)", () => {
  const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../src");
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith(".ts") && !p.includes(`${path.sep}otlp${path.sep}`)) {
        if (/^import [^;]*from "[^"]*\/otlp\/(?!config\.js)[^"]*";/m.test(readFileSync(p, "utf8"))) offenders.push(p);
      }
    }
  };
  walk(src);
  assert.deepEqual(offenders, []);
});
