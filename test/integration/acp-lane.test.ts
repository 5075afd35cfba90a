// The acp lane end to end: a real `a4aa serve` driving the scriptable fake ACP agent.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { TestSidecar, sidecarSetup, fakeAgentSpec, waitNoProcesses, processesWithMarker } from "../helpers/sidecar.js";
import type { AgentSpec } from "../../generated/ts/types.js";
import { scratchDir } from "../helpers/tmp.js";

const setup = sidecarSetup();

async function finish(s: TestSidecar, marker: string) {
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), [], "no process of the test is left");
}

test("open answers the negotiation: capabilities, agentInfo, sessionState, nativeSessionId", async () => {
  const { s, marker } = setup();
  const r = await s.ok("session/open", { spec: fakeAgentSpec(marker) });
  assert.match(r.nativeSessionId, /^fake-/);
  assert.deepEqual(r.agentInfo, { name: "fake-agent", version: "0.0.1" });
  // R-SANDBOX-1: what this machine can give (bubblewrap or not), and that nothing holds here.
  const { sandbox, ...caps } = r.capabilities;
  assert.equal(typeof sandbox.available, "boolean");
  assert.deepEqual([sandbox.filesystem, sandbox.network], ["host", "host"]);
  assert.deepEqual(caps, { lane: "acp", resume: true, cancel: true, permissions: true, images: true, selectors: { model: true, mode: true, effort: false, permission: true }, content: { image: true, resource: false, resourceLink: true }, mcp: { stdio: true, http: false } });
  assert.equal(r.sessionState.modes.currentModeId, "ask");
  assert.equal(r.sessionState.models.currentModelId, "m1");
  await finish(s, marker);
});

test("updates sent before session/new is answered arrive before the open response, under the sidecar's id", async () => {
  const { s, marker } = setup();
  const r = await s.call("session/open", { spec: fakeAgentSpec(marker, ["--early-updates"]) });
  const openIdx = s.received.indexOf(r);
  const early = s.received.slice(0, openIdx).filter((m) => m.method === "session/event");
  assert.equal(early.length, 2);
  assert.ok(early.every((m) => m.params.sessionId === r.result.sessionId));
  assert.deepEqual(early.map((m) => m.params.event.type), ["raw", "messageChunk"]);
  await finish(s, marker);
});

test("a turn streams its events in order before the answer; text and usage in the outcome", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.call("session/prompt", { sessionId: sid, text: "text:Hello ;text:world;usage" });
  const idx = s.received.indexOf(r);
  const evs = s.received.slice(0, idx).filter((m) => m.method === "session/event").map((m) => m.params.event);
  assert.deepEqual(evs.filter((e) => e.type === "messageChunk").map((e) => e.text), ["Hello ", "world"]);
  assert.deepEqual(r.result, {
    stopReason: "endTurn",
    text: "Hello world",
    usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120, reasoningTokens: 5, cachedInputTokens: 50, costUsd: 0.25 },
  });
  assert.ok(evs.some((e) => e.type === "usage" && e.costUsd === 0.25 && e.contextWindowTokens === 100000));
  await finish(s, marker);
});

test("nothing the agent says is lost: unknown updates, noise, unknown requests become raw events", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.ok("session/prompt", { sessionId: sid, text: "unknown;noise;request-unknown;stderr" });
  const evs = s.events(sid);
  assert.ok(evs.some((e) => e.type === "raw" && e.source === "acp" && (e.payload as any).update.sessionUpdate === "wild_new_thing"));
  const stdoutRaw = evs.filter((e) => e.type === "raw" && e.source === "stdout").map((e) => (e as any).payload);
  assert.deepEqual(stdoutRaw, ["this is not JSON", "[1,2,3]", '{"not":"jsonrpc"}']);
  assert.ok(evs.some((e) => e.type === "raw" && (e.payload as any).method === "x/unknown"));
  assert.match(r.text, /error:.*Method not found/);
  assert.deepEqual(evs.filter((e) => e.type === "stderr").map((e) => (e as any).text), ["fake-agent: first stderr line", "fake-agent: second stderr line"]);
  await finish(s, marker);
});

test("updates after the prompt's answer are forwarded between turns", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  await s.ok("session/prompt", { sessionId: sid, text: "after;text:x" });
  await s.waitFor(() => s.events(sid).some((e) => e.type === "messageChunk" && e.text === "late update"));
  await finish(s, marker);
});

test("a 20 MiB line from the agent is carried whole", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.ok("session/prompt", { sessionId: sid, text: "big:20" });
  assert.equal(r.text.length, 20 * 1024 * 1024);
  await finish(s, marker);
});

test("a line over maxOutputBytes fails the turn with output_limit and stops the agent", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker, [], { maxOutputBytes: 1024 * 1024 }));
  const r = await s.call("session/prompt", { sessionId: sid, text: "big:2" });
  assert.equal(r.error!.data.code, "output_limit");
  assert.equal(r.error!.data.uncertainEffect, true);
  assert.deepEqual(await waitNoProcesses(marker), []);
  const again = await s.call("session/prompt", { sessionId: sid, text: "text:x" });
  assert.equal(again.error!.data.code, "agent_exited");
  await s.ok("session/close", { sessionId: sid });
  await finish(s, marker);
});

test("an agent error answer is agent_failed with its message; an unknown stop reason is endTurn", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.call("session/prompt", { sessionId: sid, text: "text:a;refuse" });
  assert.equal(r.error!.code, -32000);
  assert.equal(r.error!.data.code, "agent_failed");
  assert.match(r.error!.data.detail, /refused to cooperate/);
  const ok = await s.ok("session/prompt", { sessionId: sid, text: "stop:max_tokens" });
  assert.equal(ok.stopReason, "maxTokens");
  const odd = await s.ok("session/prompt", { sessionId: sid, text: "stop:tired" });
  assert.equal(odd.stopReason, "endTurn");
  await finish(s, marker);
});

for (const [name, flags, code, stage] of [
  ["an agent that exits during initialize is spawn_failed with its stderr", ["--crash-on-init"], "spawn_failed", "spawn"],
  ["protocol version 2 is initialize_failed", ["--protocol", "2"], "initialize_failed", "initialize"],
  ["an auth error from session/new is auth_required", ["--auth-required"], "auth_required", "initialize"],
] as const) {
  test(name, async () => {
    const { s, marker } = setup();
    const r = await s.call("session/open", { spec: fakeAgentSpec(marker, [...flags]) });
    assert.equal(r.error!.data.code, code);
    assert.equal(r.error!.data.stage, stage);
    if (code === "spawn_failed") assert.match(r.error!.data.detail, /crashing during initialize/);
    await finish(s, marker);
  });
}

test("a program that does not exist is spawn_failed before anything runs", async () => {
  const { s, marker } = setup();
  const spec = { id: "x", lane: "acp", command: { program: "no-such-agent-a4aa", args: [], env: { policy: "sanitized", inherit: ["PATH"] } } };
  const r = await s.call("session/open", { spec });
  assert.equal(r.error!.data.code, "spawn_failed");
  assert.equal(r.error!.data.stage, "spawn");
  assert.match(r.error!.data.detail, /not found on the agent's PATH/);
  const noPath = await s.call("session/open", { spec: { ...spec, command: { ...spec.command, env: { policy: "sanitized" } } } });
  assert.match(noPath.error!.data.detail, /no PATH/);
  await finish(s, marker);
});

test("R-OPEN-1: a mode, model or resume the agent did not offer is unsupported_selector, and the agent is shut down first", async () => {
  const { s, marker } = setup();
  for (const [extra, re] of [
    [{ options: { mode: "yolo" } }, /does not offer mode "yolo" \(it offers "ask", "code"\)/],
    [{ options: { model: "m9" } }, /does not offer model "m9"/],
    [{ options: { effort: "high" } }, /offers no effort selector/],
  ] as const) {
    const r = await s.call("session/open", { spec: fakeAgentSpec(marker), ...extra });
    assert.equal(r.error!.data.code, "unsupported_selector");
    assert.equal(r.error!.data.stage, "open");
    assert.match(r.error!.data.detail, re);
    assert.deepEqual(await waitNoProcesses(marker, 100), [], "the agent was stopped before the answer");
  }
  const r = await s.call("session/open", { spec: fakeAgentSpec(marker, ["--no-load"]), resume: "old" });
  assert.equal(r.error!.data.code, "unsupported_selector");
  const ok = await s.ok("session/open", { spec: fakeAgentSpec(marker), options: { mode: "code", model: "m2", permission: "readOnly" } });
  assert.equal(ok.sessionState.modes.currentModeId, "code");
  const bad = await s.call("session/prompt", { sessionId: ok.sessionId, text: "x", model: "m7" });
  assert.equal(bad.error!.data.code, "unsupported_selector");
  assert.equal(bad.error!.data.stage, "prompt");
  await finish(s, marker);
});

test("resume replays the history (session/load) before the open response", async () => {
  const { s, marker } = setup();
  const r = await s.call("session/open", { spec: fakeAgentSpec(marker), resume: "fake-old-1" });
  assert.equal(r.result.nativeSessionId, "fake-old-1");
  const before = s.received.slice(0, s.received.indexOf(r)).filter((m) => m.method === "session/event").map((m) => m.params.event);
  assert.deepEqual(before, [
    { type: "userMessageChunk", text: "earlier question" },
    { type: "messageChunk", text: "earlier answer" },
  ]);
  await finish(s, marker);
});

function fsSetup() {
  const top = scratchDir("a4aa-acpfs");
  const cwd = path.join(top, "work");
  mkdirSync(cwd);
  writeFileSync(path.join(cwd, "in.txt"), "inside");
  writeFileSync(path.join(top, "out.txt"), "outside");
  symlinkSync(path.join(top, "out.txt"), path.join(cwd, "link"));
  return { top, cwd };
}

test("fs/* is confined to the session's cwd; symlink escapes are refused; off unless enabled", async () => {
  const { s, marker } = setup();
  const { top, cwd } = fsSetup();
  const spec = fakeAgentSpec(marker, [], { clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } } as Partial<AgentSpec>);
  const sid = await s.open(spec, { cwd });
  const say = async (t: string) => (await s.ok("session/prompt", { sessionId: sid, text: t })).text as string;
  assert.equal(await say(`fs-read:${path.join(cwd, "in.txt")}`), "content:inside");
  assert.match(await say(`fs-read:${path.join(top, "out.txt")}`), /^error:.*outside/);
  assert.match(await say(`fs-read:${path.join(cwd, "link")}`), /^error:.*outside/);
  assert.equal(await say(`fs-write:${path.join(cwd, "new.txt")}=made`), "written");
  assert.equal(readFileSync(path.join(cwd, "new.txt"), "utf8"), "made");
  assert.match(await say(`fs-write:${path.join(cwd, "link")}=pwned`), /^error:.*outside/);
  assert.equal(readFileSync(path.join(top, "out.txt"), "utf8"), "outside");
  const plain = await s.open(fakeAgentSpec(marker), { cwd });
  const off = await s.ok("session/prompt", { sessionId: plain, text: `fs-read:${path.join(cwd, "in.txt")}` });
  assert.match(off.text, /^error:.*Method not found/);
  await finish(s, marker);
});

test("terminal/* runs under supervision with the agent's environment; killed when the turn is cancelled", async () => {
  const { s, marker } = setup();
  const spec = fakeAgentSpec(marker, [], { clientCapabilities: { terminal: true } } as Partial<AgentSpec>);
  const sid = await s.open(spec);
  const r = await s.ok("session/prompt", { sessionId: sid, text: "terminal:sh -c env" });
  assert.match(r.text, /^terminal:\{"exitCode":0,"signal":null\}:/);
  assert.match(r.text, new RegExp(`A4AA_TEST_MARKER=${marker}`));
  assert.ok(!r.text.includes("SECRET_TOKEN"), "the sidecar's SECRET_TOKEN never reaches a terminal");
  const p = s.call("session/prompt", { sessionId: sid, text: "terminal-sleep" });
  await s.waitFor(() => s.events(sid).some((e) => e.type === "messageChunk" && e.text.startsWith("terminal term-")));
  assert.equal(processesWithMarkerCount(marker) >= 2, true);
  await s.ok("session/cancel", { sessionId: sid });
  assert.equal((await p).result.stopReason, "cancelled");
  await s.waitFor(() => processesWithMarkerCount(marker) === 1, 5000, "the terminal to be killed");
  await finish(s, marker);
});
const processesWithMarkerCount = (m: string) => processesWithMarker(m).length;

test("TurnOutcome.text puts one blank line between two messages (split by tool calls); an unannounced update gets its toolCall first", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  const r = await s.ok("session/prompt", { sessionId: sid, text: "text:Before;text: the tool.;tool;text:After;orphan-update;text:End" });
  assert.equal(r.text, "Before the tool.\n\nAfter\n\nEnd");
  const evs = s.events(sid).map((e: any) => `${e.type}${e.toolCallId ? `:${e.toolCallId}` : ""}`);
  assert.deepEqual(evs, ["messageChunk", "messageChunk", "toolCall:tc-2", "messageChunk", "toolCall:tc-8", "toolCallUpdate:tc-8", "messageChunk"]);
  const synth = s.events(sid).find((e: any) => e.type === "toolCall" && e.toolCallId === "tc-8") as any;
  assert.deepEqual([synth.title, synth.kind, synth.status], ["Read README.md", "other", "completed"]);
  const chunks = s.events(sid).filter((e) => e.type === "messageChunk").map((e: any) => e.text);
  assert.deepEqual(chunks, ["Before", " the tool.", "After", "End"], "the chunks go out as the agent sent them");
  await finish(s, marker);
});
