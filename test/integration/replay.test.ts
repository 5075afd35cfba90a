// R-REPLAY-1: sessions recorded through a real `a4aa serve --record` and played again
// with `a4aa replay` through another sidecar: the fake ACP agent, the fake stream-json CLI
// (Claude Code's control protocol) and a per-turn CLI (gemini's format).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentSpec } from "../../generated/ts/types.js";
import { TestSidecar, fakeAgentSpec, newMarker, waitNoProcesses, killMarked, type PermissionAnswer } from "../helpers/sidecar.js";
import { markedNodeCommand } from "../helpers/host.js";
import { eventSummary, recordingArgs, replaySpec, transcripts } from "../helpers/replay.js";
import { scratchDir } from "../helpers/tmp.js";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/", import.meta.url));
const started: TestSidecar[] = [];
const markers: string[] = [];
after(() => {
  for (const s of started) s.kill();
  for (const m of markers) killMarked(m);
});

const allow = (optionId: string) => (): PermissionAnswer => ({ result: { selected: optionId } });

function sidecar(args: string[] = [], onPermission = allow("yes")) {
  const s = new TestSidecar({ args, onPermission });
  started.push(s);
  return s;
}
function marker() {
  const m = newMarker();
  markers.push(m);
  return m;
}

/** Runs `prompts` in one session on a recording sidecar; returns the transcript and the events. */
async function record(spec: AgentSpec, prompts: string[], onPermission = allow("yes")) {
  const dir = scratchDir("a4aa-rec");
  const s = sidecar(recordingArgs(dir), onPermission);
  const sid = await s.open(spec);
  const outcomes = [];
  for (const text of prompts) outcomes.push(await s.call("session/prompt", { sessionId: sid, text }));
  await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
  return { file: path.join(dir, `${sid}.jsonl`), events: s.events(sid), outcomes, transcript: transcripts(dir).get(sid)! };
}

async function play(spec: AgentSpec, prompts: string[], onPermission = allow("yes")) {
  const s = sidecar([], onPermission);
  const sid = await s.open(spec);
  const outcomes = [];
  for (const text of prompts) outcomes.push(await s.call("session/prompt", { sessionId: sid, text }));
  await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
  return { events: s.events(sid), outcomes };
}

test("R-REPLAY-1: an ACP session (text, tool call, permission) replays with the same events and outcome", async () => {
  const m = marker();
  const prompts = ["text:Hello ;permission;text:world", "text:second turn"];
  const rec = await record(fakeAgentSpec(m), prompts);
  assert.ok(rec.events.some((e) => e.type === "permissionResolved"));
  const rep = await play(replaySpec(fakeAgentSpec(m), rec.file), prompts);
  assert.deepEqual(eventSummary(rep.events), eventSummary(rec.events));
  assert.deepEqual(rep.outcomes.map((o) => o.result), rec.outcomes.map((o) => o.result));
  assert.deepEqual(await waitNoProcesses(m), []);
});

test("R-REPLAY-1: a different prompt gets the next recorded turn; --strict fails it with agent_failed naming both", async () => {
  const m = marker();
  const rec = await record(fakeAgentSpec(m), ["text:recorded answer"]);
  const loose = await play(replaySpec(fakeAgentSpec(m), rec.file), ["something else"]);
  assert.deepEqual(eventSummary(loose.events), eventSummary(rec.events));
  const strict = await play(replaySpec(fakeAgentSpec(m), rec.file, ["--instant", "--strict"]), ["something else"]);
  const err = strict.outcomes[0].error;
  assert.equal(err?.data?.code, "agent_failed");
  assert.match(err.data.detail, /"something else".*"text:recorded answer"/);
  assert.deepEqual(await waitNoProcesses(m), []);
});

test("R-REPLAY-1: the permission is asked again; an answer the transcript did not record fails the turn clearly", async () => {
  const m = marker();
  const rec = await record(fakeAgentSpec(m), ["permission"]);
  const asked: unknown[] = [];
  const rep = await play(replaySpec(fakeAgentSpec(m), rec.file), ["permission"], () => {
    asked.push(1);
    return { result: { selected: "no" } };
  });
  assert.equal(asked.length, 1, "the host was asked again");
  const err = rep.outcomes[0].error;
  assert.equal(err?.data?.code, "agent_failed");
  assert.match(err.data.detail, /"no".*recorded.*"yes".*no branch/);
  assert.deepEqual(await waitNoProcesses(m), []);
});

test("R-REPLAY-1: a recorded branch for each answer is followed", async () => {
  const m = marker();
  let n = 0;
  const rec = await record(fakeAgentSpec(m), ["permission", "permission"], () => allow(n++ === 0 ? "yes" : "no")());
  const rep = await play(replaySpec(fakeAgentSpec(m), rec.file), ["permission"], allow("no"));
  assert.equal(rep.outcomes[0].result?.text, "outcome:selected:no");
  assert.deepEqual(await waitNoProcesses(m), []);
});

test("R-REPLAY-1: a stream-json CLI session (Claude Code's control protocol, a permission) replays", async () => {
  const m = marker();
  const spec = { id: "claude", lane: "cli", driver: "claudeCode", command: markedNodeCommand(path.join(FIXTURES, "cli/fake-claude.mjs"), [], m) } as AgentSpec;
  const prompts = ["perm please", "text again"];
  const rec = await record(spec, prompts);
  assert.ok(rec.events.some((e) => e.type === "toolCall"));
  const rep = await play(replaySpec(spec, rec.file), prompts);
  assert.deepEqual(eventSummary(rep.events), eventSummary(rec.events));
  assert.deepEqual(rep.outcomes.map((o) => o.result?.text), rec.outcomes.map((o) => o.result?.text));
  assert.deepEqual(await waitNoProcesses(m), []);
});

test("R-REPLAY-1: a per-turn CLI (gemini's stream) replays turn by turn, matched by prompt", async () => {
  const m = marker();
  const spec = { id: "gemini", lane: "cli", driver: "gemini", command: markedNodeCommand(path.join(FIXTURES, "cli/player.mjs"), ["gemini"], m) } as AgentSpec;
  const prompts = ["text first", "tool second"];
  const rec = await record(spec, prompts);
  assert.equal(rec.transcript.entries.filter((e) => e.dir === "agentStart").length, 2);
  const rep = await play(replaySpec(spec, rec.file), prompts);
  assert.deepEqual(eventSummary(rep.events), eventSummary(rec.events));
  const strict = await play(replaySpec(spec, rec.file, ["--instant", "--strict"]), ["nothing like it"]);
  assert.ok(strict.outcomes[0].error, "a strict replay fails an unknown prompt");
  assert.match(JSON.stringify(strict.outcomes[0].error), /nothing like it.*text first/);
  assert.deepEqual(await waitNoProcesses(m), []);
});
