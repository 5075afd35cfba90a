// Issue 14 "failing honestly": auth failures of ACP agents through a real `a4aa serve` (the
// scriptable fake): auth_required with the environment hint; uncertainEffect false only when
// no tool event came before the failure.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TestSidecar, sidecarSetup, fakeAgentSpec, waitNoProcesses } from "../helpers/sidecar.js";

const setup = sidecarSetup();

async function finish(s: TestSidecar, marker: string) {
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
}

test("issue 14: an ACP auth error from session/new is auth_required saying the environment is only what the spec names", async () => {
  const { s, marker } = setup();
  const r = await s.call("session/open", { spec: fakeAgentSpec(marker, ["--auth-required"]) });
  const d = r.error!.data;
  assert.deepEqual([d.code, d.stage, d.uncertainEffect], ["auth_required", "initialize", false]);
  assert.match(d.detail, /session\/new: Authentication required/);
  assert.doesNotMatch(d.detail, /session\/new: session\/new/, "the method is named once (issue 29)");
  assert.match(d.detail, /environment is only what its spec names/);
  await finish(s, marker);
});

test("issue 14: a 401 answered to session/prompt before any tool event is auth_required with uncertainEffect false", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.call("session/prompt", { sessionId: sid, text: "unauthorized" });
  const d = r.error!.data;
  assert.deepEqual([d.code, d.stage, d.uncertainEffect], ["auth_required", "prompt", false], JSON.stringify(r));
  assert.match(d.detail, /401 Unauthorized.*\n.*environment is only what its spec names/);
  // The session stays usable: the agent is alive, only its credentials are wrong.
  const ok = await s.ok("session/prompt", { sessionId: sid, text: "text:fine" });
  assert.equal(ok.stopReason, "endTurn");
  await finish(s, marker);
});

test("issue 14: a 401 after a tool event is auth_required with uncertainEffect true; other refusals stay agent_failed", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.call("session/prompt", { sessionId: sid, text: "tool;unauthorized" });
  assert.deepEqual([r.error!.data.code, r.error!.data.uncertainEffect], ["auth_required", true], JSON.stringify(r));
  const other = await s.call("session/prompt", { sessionId: sid, text: "refuse" });
  assert.equal(other.error!.data.code, "agent_failed");
  await finish(s, marker);
});
