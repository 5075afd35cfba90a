// Record a real agent's session once through `a4aa serve --record`, stop its model mock,
// replay the transcript through another `a4aa serve` with `a4aa replay` as the agent, and
// compare what the host got (R-REPLAY-1). This is also the recipe for a host's own CI.
import assert from "node:assert/strict";
import path from "node:path";
import type { AgentSpec } from "../../../generated/ts/types.js";
import { prepareAgent, startMockFor, type AgentName } from "../../agents/agents.js";
import type { Reply } from "../../agents/mocks/common.js";
import { TestSidecar, newMarker, waitNoProcesses, killMarked, type PermissionAnswer } from "../../helpers/sidecar.js";
import { eventSummary, recordingArgs, replaySpec, transcripts } from "../../helpers/replay.js";
import { scratchDir } from "../../helpers/tmp.js";
import { envLiterals } from "../../../src/env/policy.js";
import { Redactor } from "../../../src/journal/redact.js";

export interface RecordReplayCase {
  agent: AgentName;
  /** The spec around the agent's command. */
  spec: (command: AgentSpec["command"]) => AgentSpec;
  commandArgs?: string[];
  script: Reply[];
  prompts: string[];
  options?: Record<string, unknown>;
  /** How the host answers each permission request (the same when recording and replaying). */
  onPermission: (p: any) => PermissionAnswer;
}

export async function recordThenReplay(c: RecordReplayCase): Promise<{ recorded: string[]; replayed: string[]; asked: [number, number] }> {
  const dir = scratchDir("a4aa-real-rec");
  const mock = await startMockFor(c.agent, c.script);
  const run = prepareAgent(c.agent, mock);
  const marker = newMarker();
  const command = run.command(c.commandArgs);
  if (command.env.policy === "sanitized") command.env.set = { ...command.env.set, A4AA_TEST_MARKER: marker };
  const spec = c.spec(command);
  let asked = [0, 0] as [number, number];
  const recorder = new TestSidecar({ args: recordingArgs(dir), onPermission: (p) => (asked[0]++, c.onPermission(p)) });
  let player: TestSidecar | undefined;
  try {
    const sid = await recorder.open(spec, { cwd: run.cwd, options: c.options });
    const recOut = [];
    for (const text of c.prompts) recOut.push(await recorder.ok("session/prompt", { sessionId: sid, text }));
    await recorder.ok("session/close", { sessionId: sid });
    assert.equal(await recorder.end(30_000), 0, recorder.stderr.slice(-2000));
    assert.deepEqual(await waitNoProcesses(marker), []);
    const requestsSeen = mock.mainRequests().length;
    // No model from here on.
    await mock.close();
    const file = path.join(dir, `${sid}.jsonl`);
    assert.ok(transcripts(dir).get(sid)!.entries.length > 0);

    player = new TestSidecar({ onPermission: (p) => (asked[1]++, c.onPermission(p)) });
    const rsid = await player.open(replaySpec(spec, file), { cwd: run.cwd, options: c.options });
    const repOut = [];
    for (const text of c.prompts) repOut.push(await player.ok("session/prompt", { sessionId: rsid, text }));
    await player.ok("session/close", { sessionId: rsid });
    assert.equal(await player.end(30_000), 0, player.stderr.slice(-2000));
    assert.deepEqual(await waitNoProcesses(marker), []);
    assert.equal(mock.mainRequests().length, requestsSeen, "the replay reached no model");
    assert.deepEqual(repOut.map((o) => o.stopReason), recOut.map((o) => o.stopReason));
    // What a transcript cannot hold (R-REC-1: env literals such as SHELL=/bin/bash are
    // redacted wherever they occur) the replay cannot give back: compare redacted texts.
    const redactor = new Redactor();
    redactor.add(envLiterals({ policy: spec.command.env }));
    const recorded = eventSummary(recorder.events(sid)).map(redactor.redact);
    return { recorded, replayed: eventSummary(player.events(rsid)), asked };
  } finally {
    recorder.kill();
    player?.kill();
    killMarked(marker);
    await mock.close().catch(() => undefined);
    await run.cleanup();
  }
}
