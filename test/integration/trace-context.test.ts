// R-OTEL-2 through a real `a4aa serve`: session/prompt's traceparent/tracestate reach the
// agent in its own form — ACP `_meta` on session/prompt, TRACEPARENT/TRACESTATE in a per-turn
// CLI's environment — and a malformed traceparent is invalid_params.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeAgentSpec, newMarker, sidecarSetup, waitNoProcesses } from "../helpers/sidecar.js";

const setup = sidecarSetup();
const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

test("R-OTEL-2: the ACP agent gets the turn's traceparent and tracestate in session/prompt _meta; none without them", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.ok("session/prompt", { sessionId: sid, text: "meta", traceparent: TP, tracestate: "vendor=a" });
  const meta = JSON.parse(r.text);
  assert.equal(meta.tracestate, "vendor=a");
  // Without export configured the host's context is passed as it came (with export, the turn span's).
  assert.equal(meta.traceparent.split("-")[1], TP.split("-")[1], "the same trace");
  assert.equal(JSON.parse((await s.ok("session/prompt", { sessionId: sid, text: "meta" })).text), null);
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-OTEL-2: a per-turn CLI gets TRACEPARENT/TRACESTATE in its environment for that turn only", async () => {
  const { s } = setup();
  const marker = newMarker();
  const spec = {
    id: "sh",
    lane: "cli",
    driver: "generic",
    command: { program: "sh", args: ["-c", 'printf "%s|%s" "${TRACEPARENT-unset}" "${TRACESTATE-unset}"', "sh"], env: { policy: "sanitized", inherit: ["PATH"], set: { A4AA_TEST_MARKER: marker } } },
  };
  const sid = await s.open(spec as never);
  const first = await s.ok("session/prompt", { sessionId: sid, text: "hi", traceparent: TP, tracestate: "k=v" });
  assert.equal(first.text.trim().split("|")[0]!.split("-")[1], TP.split("-")[1]);
  assert.equal(first.text.trim().split("|")[1], "k=v");
  const second = await s.ok("session/prompt", { sessionId: sid, text: "hi" });
  assert.equal(second.text.trim(), "unset|unset");
  assert.equal(await s.end(), 0);
});

test("R-OTEL-2: a traceparent that is not W3C is invalid_params", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.call("session/prompt", { sessionId: sid, text: "meta", traceparent: "not-a-trace" });
  assert.equal(r.error?.data.code, "invalid_params");
  assert.match(r.error!.data.detail, /traceparent/);
  assert.equal(await s.end(), 0);
});
