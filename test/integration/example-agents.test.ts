// The bundled example agent (what `a4aa demo` drives) and the example agent shipped in
// @agentclientprotocol/sdk@1.9.0, both through a real `a4aa serve`.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { JsonRpcPeer } from "../../src/transport/json-rpc.js";
import { TestSidecar, exampleAgentSpec, newMarker, waitNoProcesses, killMarked } from "../helpers/sidecar.js";
import type { AgentSpec } from "../../generated/ts/types.js";

const started: TestSidecar[] = [];
const markers: string[] = [];
after(() => {
  for (const s of started) s.kill();
  for (const m of markers) killMarked(m);
});
function setup(onPermission?: ConstructorParameters<typeof TestSidecar>[0] extends infer O ? (O extends { onPermission?: infer P } ? P : never) : never) {
  const s = new TestSidecar({ onPermission });
  started.push(s);
  const marker = newMarker();
  markers.push(marker);
  return { s, marker };
}

test("example agent: a full turn streams thoughts, a plan, tool calls, a permission and the reply", async () => {
  const { s, marker } = setup(() => ({ result: { selected: "allow" } }));
  const sid = await s.open(exampleAgentSpec(marker), { options: { model: "example-large" } });
  const out = await s.ok("session/prompt", { sessionId: sid, text: "Summarize the project" });
  const types = [...new Set(s.events(sid).map((e) => e.type))];
  assert.deepEqual(types, ["thoughtChunk", "plan", "toolCall", "toolCallUpdate", "permissionResolved", "messageChunk", "usage"]);
  assert.equal(out.stopReason, "endTurn");
  assert.match(out.text, /The shell works \(it printed hello\)/);
  assert.match(out.text, /model example-large/);
  assert.ok(out.usage.inputTokens > 0 && out.usage.costUsd > 0);
  const run = s.events(sid).find((e) => e.type === "toolCallUpdate" && e.toolCallId === "run-1") as any;
  assert.equal(run.status, "completed");
  assert.deepEqual(run.contentTexts, ["hello"]);
  await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("example agent: plan mode asks nothing; a rejected permission runs nothing; per-turn selectors are restored", async () => {
  const { s, marker } = setup(() => ({ result: { selected: "reject" } }));
  const plan = await s.open(exampleAgentSpec(marker), { options: { mode: "plan", effort: "high" } });
  const p = await s.ok("session/prompt", { sessionId: plan, text: "hi" });
  assert.match(p.text, /In plan mode I ran nothing/);
  assert.match(p.text, /effort high/);
  assert.equal(s.received.filter((m) => m.method === "permission/request").length, 0);
  const sid = await s.open(exampleAgentSpec(marker));
  const r = await s.ok("session/prompt", { sessionId: sid, text: "hi", model: "example-large" });
  assert.match(r.text, /I did not run the command/);
  assert.match(r.text, /model example-large/);
  const r2 = await s.ok("session/prompt", { sessionId: sid, text: "/echo again" });
  assert.equal(r2.text, "again");
  const r3 = await s.ok("session/prompt", { sessionId: sid, text: "hi" });
  assert.match(r3.text, /model example-small/, "the per-turn model did not stick");
  assert.equal(await s.end(), 0);
});

test("example agent: resume replays the conversation before the open response", async () => {
  const { s, marker } = setup();
  const first = await s.ok("session/open", { spec: exampleAgentSpec(marker) });
  await s.ok("session/prompt", { sessionId: first.sessionId, text: "/echo remember me" });
  await s.ok("session/close", { sessionId: first.sessionId });
  const r = await s.call("session/open", { spec: exampleAgentSpec(marker), resume: first.nativeSessionId });
  assert.equal(r.result.nativeSessionId, first.nativeSessionId);
  const replay = s.received.slice(0, s.received.indexOf(r)).filter((m) => m.method === "session/event" && m.params.sessionId === r.result.sessionId).map((m) => m.params.event);
  assert.deepEqual(replay, [
    { type: "userMessageChunk", text: "/echo remember me" },
    { type: "messageChunk", text: "remember me" },
  ]);
  assert.equal(await s.end(), 0);
});

test("example agent: a 10 MiB prompt goes through", async () => {
  const { s, marker } = setup();
  const sid = await s.open(exampleAgentSpec(marker));
  const r = await s.ok("session/prompt", { sessionId: sid, text: "/size" + "z".repeat(10 * 1024 * 1024) });
  assert.equal(r.text, `I received ${10 * 1024 * 1024 + 5} characters.`);
  assert.equal(await s.end(), 0);
});

test("@agentclientprotocol/sdk@1.9.0's example agent: text, tool calls, permission, cancel", async () => {
  const agent = fileURLToPath(new URL("../../../node_modules/acp-sdk-1-9/dist/examples/agent.js", import.meta.url));
  const { s, marker } = setup(() => ({ result: { selected: "allow" } }));
  const spec: AgentSpec = {
    id: "sdk-example",
    lane: "acp",
    command: { program: process.execPath, args: [agent], env: { policy: "sanitized", inherit: ["PATH"], set: { A4AA_TEST_MARKER: marker } } },
  };
  const sid = await s.open(spec);
  const r = await s.ok("session/prompt", { sessionId: sid, text: "go" });
  assert.equal(r.stopReason, "endTurn");
  const evs = s.events(sid);
  assert.ok(evs.some((e) => e.type === "toolCall" && e.kind === "read"));
  assert.ok(evs.some((e) => e.type === "permissionResolved" && e.optionId === "allow"));
  assert.match(r.text, /I'll help you with that/);
  const p = s.call("session/prompt", { sessionId: sid, text: "again" });
  await s.waitFor(() => s.events(sid).length > evs.length);
  await s.ok("session/cancel", { sessionId: sid });
  assert.equal((await p).result.stopReason, "cancelled");
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("example agent: a cancel read in the same chunk as its prompt ends that turn (handlers start in arrival order)", async () => {
  const agentPath = fileURLToPath(new URL("../../src/examples/example-agent.js", import.meta.url));
  const agent = spawn(process.execPath, [agentPath], { stdio: ["pipe", "pipe", "inherit"] });
  try {
    // The client side on a4aa's own peer; its lines are held until flush() so that two
    // messages can go out in one write.
    let held: string[] = [];
    const flush = () => {
      agent.stdin.write(held.map((l) => l + "\n").join(""));
      held = [];
    };
    const peer = new JsonRpcPeer({
      sendLine: (l) => held.push(l),
      onRequest: () => undefined,
      onNotification: () => undefined,
      toRpcError: (e) => ({ code: -32603, message: String(e) }),
      invalidRequest: (reason) => ({ code: -32600, message: reason }),
      requireVersion: false,
      writeVersion: true,
      allowBatch: false,
    });
    createInterface({ input: agent.stdout }).on("line", (l) => peer.handle(JSON.parse(l)));
    const ask = <R>(method: string, params: unknown, timeoutMs = 5_000) => {
      const r = peer.request<R>(method, params, { timeoutMs });
      flush();
      return r;
    };
    await ask("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await ask<{ sessionId: string }>("session/new", { cwd: process.cwd(), mcpServers: [] });
    // A turn of 100 chunks 100 ms apart takes 10 s uncancelled; the answer must come well before.
    const prompt = peer.request<{ stopReason: string }>("session/prompt", { sessionId, prompt: [{ type: "text", text: "/slow 100" }] }, { timeoutMs: 3_000 });
    peer.notify("session/cancel", { sessionId });
    flush();
    assert.equal((await prompt).stopReason, "cancelled");
  } finally {
    agent.kill("SIGKILL");
  }
});
