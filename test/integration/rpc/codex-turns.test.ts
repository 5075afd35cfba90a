// The rpc lane (dialect codexAppServer) end to end against the fake app-server — turns: the notification mapping, usage, selectors, failures, misbehaviour.
// The real Codex is tested in test/real/codex/rpc.*.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fakeSpec, processesWithMarker, waitGone } from "../../fixtures/rpc/host.js";
import { cleanupAfterAll, finish, prompt, setup } from "./setup.js";

cleanupAfterAll();

test("a turn: deltas, reasoning, whole messages, plan, tool items, usage of the turn itself; text in the outcome", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  const r = await h.ok("session/prompt", { sessionId: sid, text: "think:hmm;text:Hello world;whole:!;plan;mcp;web;usage" });
  assert.equal(r.stopReason, "endTurn");
  assert.equal(r.text, "Hello world\n\n!", "two agentMessage items: two messages, one blank line between");
  const evs = h.events(sid);
  assert.deepEqual(evs.filter((e) => e.type === "thoughtChunk").map((e: any) => e.text), ["hmm", "\n\n", "more"]);
  assert.deepEqual(evs.find((e) => e.type === "plan"), {
    type: "plan",
    entries: [
      { content: "look", status: "completed" },
      { content: "fix", status: "inProgress" },
      { content: "test", status: "pending" },
    ],
  });
  const mcp = evs.find((e: any) => e.type === "toolCall" && e.title === "docs.lookup") as any;
  assert.deepEqual([mcp.kind, mcp.status, mcp.rawInput], ["other", "inProgress", { q: "x" }]);
  const mcpDone = evs.find((e: any) => e.type === "toolCallUpdate" && e.toolCallId === mcp.toolCallId) as any;
  assert.deepEqual([mcpDone.status, mcpDone.contentTexts], ["completed", ["found it"]]);
  const web = evs.find((e: any) => e.type === "toolCall" && e.kind === "fetch") as any;
  assert.equal(web.title, "Web search: a4aa");
  // The thread's totals were 0 before the turn: three model calls of this turn.
  assert.deepEqual(r.usage, { inputTokens: 260, outputTokens: 35, cachedInputTokens: 3, reasoningTokens: 6, totalTokens: 295, contextUsedTokens: 15, contextWindowTokens: 200000 });
  assert.equal(evs.filter((e) => e.type === "usage").length, 3);
  // Nothing of the turn's own bookkeeping leaks as raw; the pre-thread warning does.
  const raws = evs.filter((e) => e.type === "raw").map((e: any) => e.payload.method);
  assert.ok(raws.includes("configWarning"), JSON.stringify(raws));
  assert.ok(!raws.some((m: string) => m.startsWith("turn/") || m.startsWith("item/")), JSON.stringify(raws));
  await finish(h, marker);
});

test("usage is the turn's own: the second turn reports its difference from the thread's running total", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  await h.ok("session/prompt", { sessionId: sid, text: "usage" });
  const r2 = await h.ok("session/prompt", { sessionId: sid, text: "text:x" });
  assert.deepEqual(r2.usage, { inputTokens: 10, outputTokens: 5, cachedInputTokens: 1, reasoningTokens: 2, totalTokens: 15, contextUsedTokens: 15, contextWindowTokens: 200000 });
  await finish(h, marker);
});

test("per-turn model and effort go with turn/start and the session's own are restored on the next turn", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker), { options: { model: "base-model", effort: "low" } });
  const sel = async (extra: Record<string, unknown> = {}) => JSON.parse((await h.ok("session/prompt", { sessionId: sid, text: "selectors", ...extra })).text);
  assert.deepEqual(await sel(), { model: null, effort: "low" }, "the session's effort goes with the first turn (thread/start has none)");
  assert.deepEqual(await sel({ model: "other", effort: "high" }), { model: "other", effort: "high" });
  assert.deepEqual(await sel(), { model: "base-model", effort: "low" }, "Codex keeps a turn's selectors: the lane puts the session's back");
  assert.deepEqual(await sel(), { model: null, effort: null }, "nothing to change");
  await finish(h, marker);
});

test("turn/completed failed → agent_failed with Codex's message; the session stays usable", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  const r = await prompt(h, sid, "text:partial;fail:model exploded");
  assert.equal(r.error?.data.code, "agent_failed");
  assert.equal(r.error?.data.stage, "prompt");
  assert.match(r.error?.data.detail, /model exploded/);
  assert.equal((await h.ok("session/prompt", { sessionId: sid, text: "text:again" })).text, "again");
  await finish(h, marker);
});

test("an unknown server request is answered with an error, never left hanging; it is also forwarded raw", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  const r = await h.ok("session/prompt", { sessionId: sid, text: "unknown-request:item/tool/requestUserInput;unknown-request:made/up" });
  assert.equal(r.text, 'answer={"error":-32601}\n\nanswer={"error":-32601}', "two agentMessage items");
  const raws = h.events(sid).filter((e) => e.type === "raw").map((e: any) => e.payload.method);
  assert.ok(raws.includes("item/tool/requestUserInput") && raws.includes("made/up"));
  await finish(h, marker);
});

test("malformed lines, batches and unknown notifications become raw events; the turn goes on", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  const r = await h.ok("session/prompt", { sessionId: sid, text: "noise;other-thread" });
  assert.equal(r.text, "after noise", "a sub-agent's delta is not the session's text");
  const raws = h.events(sid).filter((e) => e.type === "raw") as any[];
  assert.ok(raws.some((e) => e.source === "stdout" && e.payload === "this is not json"));
  assert.ok(raws.some((e) => e.source === "rpc" && e.payload.method === "codex/unknownThing" && e.payload.params.extra.nested === true));
  assert.ok(raws.some((e) => e.source === "rpc" && e.payload.method === "item/agentMessage/delta" && e.payload.params.threadId === "sub-thread"));
  await finish(h, marker);
});

test("a Codex that does put jsonrpc on its lines is understood too", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker, ["--jsonrpc"]));
  assert.equal((await h.ok("session/prompt", { sessionId: sid, text: "text:ok" })).text, "ok");
  await finish(h, marker);
});

test("stderr lines of a turn are forwarded as stderr events", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker));
  await h.ok("session/prompt", { sessionId: sid, text: "stderr;text:x" });
  const lines = h.events(sid).filter((e) => e.type === "stderr").map((e: any) => e.text);
  assert.ok(lines.includes("fake-app-server: stderr one") && lines.includes("fake-app-server: stderr two"), JSON.stringify(lines));
  await finish(h, marker);
});

test("a line over maxOutputBytes fails the turn with output_limit and stops codex", async () => {
  const { h, marker } = setup();
  const sid = await h.open(fakeSpec(marker, [], { maxOutputBytes: 4096 }));
  const r = await prompt(h, sid, `text:${"x".repeat(10_000)}`);
  assert.equal(r.error?.data.code, "output_limit");
  assert.equal(r.error?.data.stage, "prompt");
  assert.deepEqual(await waitGone(() => processesWithMarker(marker)), [], "codex was stopped");
  assert.equal((await prompt(h, sid, "text:x")).error?.data.code, "agent_exited");
  await finish(h, marker);
});

test("thread/status/changed and account/rateLimits/updated become status and rateLimits events, not raw", async () => {
  const { h, marker } = setup(undefined, () => ({ result: { selected: "accept" } }));
  const sid = await h.open(fakeSpec(marker));
  const r = await h.ok("session/prompt", { sessionId: sid, text: "text:Before;cmd:ls;text:After;status;ratelimits" });
  assert.match(r.text, /^Before\n\n.*After$/s, "a tool item between two messages: one blank line");
  const evs = h.events(sid);
  assert.deepEqual(evs.filter((e) => e.type === "status"), [{ type: "status", status: "waitingForApproval" }, { type: "status", status: "idle" }]);
  assert.deepEqual(evs.filter((e) => e.type === "rateLimits"), [{ type: "rateLimits", limitId: "codex", primary: { usedPercent: 12, windowMinutes: 300, resetsAt: 1764770000 } }]);
  const raws = evs.filter((e) => e.type === "raw").map((e: any) => e.payload.method);
  assert.ok(!raws.includes("thread/status/changed") && !raws.includes("account/rateLimits/updated"), JSON.stringify(raws));
  await finish(h, marker);
});
