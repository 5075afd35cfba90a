// The rpc lane (dialect codexAppServer) end to end against the fake app-server — open: the handshake, presets, resume, start-up failures.
// The real Codex is tested in test/real/codex/rpc.*.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fakeSpec, poll, processesWithMarker, waitGone } from "../../fixtures/rpc/host.js";
import { cleanupAfterAll, finish, prompt, setup } from "./setup.js";

cleanupAfterAll();

test("open: initialize with clientInfo, initialized, thread/start with the preset's policy; no jsonrpc on the wire", async () => {
  const { h, marker } = setup();
  const r = await h.ok("session/open", { spec: fakeSpec(marker, [], { clientName: "my-host" }) });
  assert.equal(r.nativeSessionId, "thr_fake_1");
  // R-SANDBOX-1: what this machine can give (bubblewrap or not), and that nothing holds here.
  const { sandbox, ...caps } = r.capabilities;
  assert.equal(typeof sandbox.available, "boolean");
  assert.deepEqual([sandbox.filesystem, sandbox.network], ["host", "host"]);
  assert.deepEqual(caps, { lane: "rpc", resume: true, cancel: true, permissions: true, images: true, selectors: { model: true, mode: false, effort: true, permission: true }, content: { image: true, resource: true, resourceLink: true }, mcp: { stdio: true, http: true } });
  assert.equal(r.agentInfo, null);
  assert.equal(r.sessionState, null);
  const out = await h.ok("session/prompt", { sessionId: r.sessionId, text: "handshake" });
  const sent = JSON.parse(out.text);
  assert.deepEqual(sent.map((m: any) => m.method), ["initialize", "initialized", "thread/start"], "no jsonrpc field seen, in this order");
  assert.equal(sent[0].params.clientInfo.name, "my-host");
  assert.equal(typeof sent[0].params.clientInfo.version, "string");
  assert.equal(sent[0].id, 1);
  // Default preset for the rpc lane is `ask`: untrusted + workspace-write.
  assert.equal(sent[2].params.approvalPolicy, "untrusted");
  assert.equal(sent[2].params.sandbox, "workspace-write");
  assert.equal(typeof sent[2].params.cwd, "string");
  await finish(h, marker);
});

for (const [preset, approvalPolicy, sandbox] of [
  ["acceptEdits", "on-request", "workspace-write"],
  ["readOnly", "never", "read-only"],
  ["bypass", "never", "danger-full-access"],
] as const) {
  test(`preset ${preset} → approvalPolicy ${approvalPolicy}, sandbox ${sandbox}`, async () => {
    const { h, marker } = setup();
    const sid = await h.open(fakeSpec(marker), { options: { permission: preset, model: "gpt-x" } });
    const sent = JSON.parse((await h.ok("session/prompt", { sessionId: sid, text: "handshake" })).text);
    assert.deepEqual([sent[2].params.approvalPolicy, sent[2].params.sandbox, sent[2].params.model], [approvalPolicy, sandbox, "gpt-x"]);
    await finish(h, marker);
  });
}

test("the spec's approvalPolicy and sandbox win over the preset", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker, [], { approvalPolicy: "on-request", sandbox: "read-only" }), { options: { permission: "bypass" } });
  const sent = JSON.parse((await h.ok("session/prompt", { sessionId: sid, text: "handshake" })).text);
  assert.deepEqual([sent[2].params.approvalPolicy, sent[2].params.sandbox], ["on-request", "read-only"]);
  await finish(h, marker);
});

test("R-OPEN-1: a mode is refused before anything is spawned", async () => {
  const { h, marker } = setup();
  const r = await h.call("session/open", { spec: fakeSpec(marker), options: { mode: "plan" } });
  assert.equal(r.error?.data.code, "unsupported_selector");
  assert.equal(r.error?.data.stage, "open");
  assert.deepEqual(processesWithMarker(marker), []);
  await finish(h, marker);
});

test("resume: thread/resume with the given id; nativeSessionId is it; a refused resume is initialize_failed and nothing is left", async () => {
  const { h, marker } = setup();
  const r = await h.ok("session/open", { spec: fakeSpec(marker), resume: "thr_old" });
  assert.equal(r.nativeSessionId, "thr_old");
  const sent = JSON.parse((await h.ok("session/prompt", { sessionId: r.sessionId, text: "handshake" })).text);
  assert.equal(sent[2].method, "thread/resume");
  assert.deepEqual([sent[2].params.threadId, sent[2].params.excludeTurns], ["thr_old", true]);
  const bad = await h.call("session/open", { spec: fakeSpec(marker, ["--resume-fails"]), resume: "thr_gone" });
  assert.equal(bad.error?.data.code, "initialize_failed");
  assert.match(bad.error?.data.detail, /no rollout found/);
  await finish(h, marker);
});

test("spawn_failed: codex exiting during initialize, or a missing program", async () => {
  const { h, marker } = setup();
  const r = await h.call("session/open", { spec: fakeSpec(marker, ["--crash-on-init"]) });
  assert.equal(r.error?.data.code, "spawn_failed");
  assert.match(r.error?.data.detail, /crashing during initialize/);
  const spec = fakeSpec(marker);
  spec.command.program = "/nonexistent/codex";
  const r2 = await h.call("session/open", { spec });
  assert.equal(r2.error?.data.code, "spawn_failed");
  await finish(h, marker);
});

test("R-CLOSE-1: close during a hung handshake ends codex", async () => {
  const { h, marker } = setup();
  const open = h.call("session/open", { spec: fakeSpec(marker, ["--hang-init"]) });
  await poll(() => processesWithMarker(marker).length > 0, 10_000, "codex to start");
  const code = await h.end();
  assert.equal(code, 0);
  assert.ok((await open).error, "the open fails");
  assert.deepEqual(await waitGone(() => processesWithMarker(marker)), []);
});
