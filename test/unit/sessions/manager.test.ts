// The session layer with an in-process fake lane: lifecycle rules every lane shares.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SessionManager } from "../../../src/sessions/manager.js";
import { createLogger } from "../../../src/log.js";
import { FlowGate } from "../../../src/transport/ndjson-writer.js";
import { A4aaError } from "../../../src/errors.js";
import type { AnyLaneDriver, LaneSession, TurnInput } from "../../../src/lanes/lane.js";
import type { AgentEvent, AgentSpec, TurnOutcome } from "../../../generated/ts/types.js";
import { scratchDir } from "../../helpers/tmp.js";

class FakeLane implements LaneSession {
  nativeSessionId = "n1";
  agentInfo = null;
  sessionState = null;
  capabilities = { lane: "acp" as const, resume: false, cancel: true, permissions: true, images: false, selectors: { model: false, mode: false, effort: false, permission: true }, content: { image: false, resource: false, resourceLink: false }, mcp: { stdio: false, http: false } };
  alive = true;
  cleanResults: boolean[] = [];
  closes = 0;
  cancels = 0;
  ignoreCancel = false;
  private finish: ((o: TurnOutcome) => void) | null = null;
  constructor(private emit: (e: AgentEvent) => void) {}
  checkTurn(input: TurnInput) {
    if (input.model === "bad") throw new A4aaError("unsupported_selector", "prompt", "bad model");
  }
  prompt(input: TurnInput): Promise<TurnOutcome> {
    this.emit({ type: "messageChunk", text: `re:${input.text}` });
    if (input.text === "quick") return Promise.resolve({ stopReason: "endTurn" });
    if (input.text === "die") {
      this.alive = false;
      return Promise.reject(new A4aaError("agent_exited", "prompt", "boom", { uncertainEffect: true }));
    }
    return new Promise((r) => (this.finish = r));
  }
  async cancel() {
    this.cancels++;
    if (!this.ignoreCancel) this.finish?.({ stopReason: "endTurn" });
  }
  async close() {
    this.closes++;
    const clean = this.cleanResults.shift() ?? true;
    return clean ? { clean } : { clean, detail: "pid 123 survived" };
  }
}

function setup() {
  const events: [string, AgentEvent][] = [];
  const lanes: FakeLane[] = [];
  const logs: string[] = [];
  /** While set, lanes take this long to open. */
  const slow = { openMs: 0 };
  const driver: AnyLaneDriver = {
    lane: "acp",
    defaultPermission: () => "ask",
    precheck: (_s, o) => {
      if (o.mode === "nope") throw new A4aaError("unsupported_selector", "open", "no such mode");
    },
    open: async (ctx) => {
      if (slow.openMs) await new Promise((r) => setTimeout(r, slow.openMs));
      const l = new FakeLane(ctx.emit);
      lanes.push(l);
      return l;
    },
  };
  const m = new SessionManager({
    host: { gate: new FlowGate(), event: (s, e) => events.push([s, e]), requestPermission: async () => ({ cancelled: true }) },
    logger: createLogger("info", (l) => logs.push(l)),
    version: "0",
    hostEnv: {},
    trustHostEnv: false,
    drivers: async () => driver,
    timings: { cancelGraceMs: 100 },
  });
  const cwd = scratchDir("a4aa-mgr");
  const spec = { id: "x", lane: "acp", command: { program: "x", args: [], env: { policy: "sanitized" } } } as AgentSpec;
  return { m, events, lanes, logs, slow, open: (extra = {}) => m.open({ spec, cwd, ...extra }) };
}

test("R-OPEN-1: a selector the lane cannot honour is refused before the lane opens", async () => {
  const { open, lanes } = setup();
  await assert.rejects(open({ options: { mode: "nope" } }), (e: A4aaError) => e.code === "unsupported_selector" && e.stage === "open");
  assert.equal(lanes.length, 0);
});

test("session/open refuses a cwd that is not a directory and an env policy that leaks", async () => {
  const { m, lanes } = setup();
  const spec = { id: "x", lane: "acp", command: { program: "x", args: [], env: { policy: "sanitized", inherit: ["SECRET_TOKEN"] } } } as AgentSpec;
  await assert.rejects(m.open({ spec, cwd: "/definitely/not/here" }), (e: A4aaError) => e.code === "invalid_params");
  await assert.rejects(m.open({ spec, cwd: os.tmpdir() }), (e: A4aaError) => e.code === "env_refused");
  assert.equal(lanes.length, 0);
});

test("R-PROMPT-1: one turn at a time; another session runs meanwhile", async () => {
  const { m, open } = setup();
  const a = (await open()).sessionId;
  const b = (await open()).sessionId;
  const turn = m.prompt({ sessionId: a, text: "long" });
  await assert.rejects(m.prompt({ sessionId: a, text: "again" }), (e: A4aaError) => e.code === "turn_in_progress" && e.retryable);
  assert.deepEqual(await m.prompt({ sessionId: b, text: "quick" }), { stopReason: "endTurn", text: "re:quick" });
  await m.cancel({ sessionId: a });
  assert.equal((await turn).stopReason, "cancelled");
});

test("R-CANCEL-1: cancelled whatever the agent answers; within the grace period if it ignores cancel", async () => {
  const { m, open, lanes } = setup();
  const s = (await open()).sessionId;
  lanes[0].ignoreCancel = true;
  const turn = m.prompt({ sessionId: s, text: "long" });
  const t0 = Date.now();
  assert.deepEqual(await m.cancel({ sessionId: s }), {});
  const out = await turn;
  assert.equal(out.stopReason, "cancelled");
  assert.equal(out.text, "re:long");
  assert.ok(Date.now() - t0 >= 90, "settled by the grace timer");
  await assert.rejects(m.cancel({ sessionId: "nope" }), (e: A4aaError) => e.code === "unknown_session");
  assert.deepEqual(await m.cancel({ sessionId: s }), {}, "no turn to cancel");
});

test("R-CLOSE-1/R-PROMPT-2: close settles the turn, then cleans up; new prompts fail with session_closing", async () => {
  const { m, open, lanes } = setup();
  const s = (await open()).sessionId;
  lanes[0].ignoreCancel = true;
  lanes[0].cleanResults = [true];
  const turn = m.prompt({ sessionId: s, text: "long" });
  const closing = m.close({ sessionId: s });
  await assert.rejects(m.prompt({ sessionId: s, text: "more" }), (e: A4aaError) => e.code === "session_closing");
  await assert.rejects(turn, (e: A4aaError) => e.code === "session_closed");
  assert.deepEqual(await closing, { processes: { ended: 0, killed: 0 } });
  assert.equal(lanes[0].closes, 1);
  await assert.rejects(m.prompt({ sessionId: s, text: "x" }), (e: A4aaError) => e.code === "unknown_session");
});

test("R-CLOSE-2: closes are idempotent and concurrent closes share one cleanup", async () => {
  const { m, open, lanes } = setup();
  const s = (await open()).sessionId;
  const results = await Promise.all([m.close({ sessionId: s }), m.close({ sessionId: s }), m.close({ sessionId: s })]);
  assert.deepEqual(results, [{ processes: { ended: 0, killed: 0 } }, { processes: { ended: 0, killed: 0 } }, { processes: { ended: 0, killed: 0 } }], "fake lanes start no process: nothing to count");
  assert.equal(lanes[0].closes, 1);
  assert.deepEqual(await m.close({ sessionId: s }), { processes: { ended: 0, killed: 0 } });
  assert.deepEqual(await m.close({ sessionId: "never-known" }), { processes: { ended: 0, killed: 0 } });
});

test("R-CLOSE-3: a failed cleanup answers cleanup_failed, keeps the entry, and a later close retries", async () => {
  const { m, open, lanes } = setup();
  const s = (await open()).sessionId;
  lanes[0].cleanResults = [false, true];
  await assert.rejects(m.close({ sessionId: s }), (e: A4aaError) => e.code === "cleanup_failed" && e.retryable && /pid 123/.test(e.message));
  assert.equal(m.size, 1);
  assert.deepEqual(await m.close({ sessionId: s }), { processes: { ended: 0, killed: 0 } });
  assert.equal(lanes[0].closes, 2);
  assert.equal(m.size, 0);
});

test("R-SUP-2: after the agent dies mid-turn the session only closes", async () => {
  const { m, open } = setup();
  const s = (await open()).sessionId;
  await assert.rejects(m.prompt({ sessionId: s, text: "die" }), (e: A4aaError) => e.code === "agent_exited" && e.uncertainEffect);
  await assert.rejects(m.prompt({ sessionId: s, text: "again" }), (e: A4aaError) => e.code === "agent_exited" && !e.uncertainEffect);
  assert.deepEqual(await m.close({ sessionId: s }), { processes: { ended: 0, killed: 0 } });
});

test("per-turn selectors are checked before the turn starts", async () => {
  const { m, open, events } = setup();
  const s = (await open()).sessionId;
  await assert.rejects(m.prompt({ sessionId: s, text: "x", model: "bad" }), (e: A4aaError) => e.code === "unsupported_selector" && e.stage === "prompt");
  assert.equal(events.length, 0);
});

test("closeAll reports false when any cleanup failed", async () => {
  const { m, open, lanes } = setup();
  await open();
  await open();
  lanes[1].cleanResults = [false];
  assert.equal(await m.closeAll(), false);
});

test("R-CLOSE-2, R-SUP-6: closing an id never opened answers zero counts and logs it at info; closing a closed one logs nothing", async () => {
  const { m, open, logs } = setup();
  const s = (await open()).sessionId;
  const none = { processes: { ended: 0, killed: 0 } };
  assert.deepEqual(await m.close({ sessionId: s }), none);
  assert.deepEqual(await m.close({ sessionId: s }), none);
  assert.deepEqual(logs.filter((l) => /no session of that id/.test(l)), []);
  assert.deepEqual(await m.close({ sessionId: "never-known" }), none);
  const said = logs.filter((l) => /no session of that id/.test(l));
  assert.equal(said.length, 1, logs.join(""));
  assert.match(said[0], /^a4aa info: session\/close "never-known"/);
});

test("a close while the lane is still opening waits for it, ends the lane, and the open fails with session_closed", async () => {
  const { m, open, lanes, slow } = setup();
  slow.openMs = 50;
  const opening = open();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(m.size, 1, "registered before the agent is up");
  const closed = m.closeAll();
  await assert.rejects(opening, (e: A4aaError) => e.code === "session_closed" && e.stage === "open");
  assert.equal(await closed, true);
  assert.equal(lanes.length, 1);
  assert.equal(lanes[0].closes, 1);
  assert.equal(m.size, 0);
});
