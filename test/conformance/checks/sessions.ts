// §2 session/open, prompt, cancel, close, and the unnumbered rules of §2–§4.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { sleep, type Check, type CheckContext } from "../harness/context.js";
import { describe } from "../harness/procs.js";

/** A session whose turn the fake agent never ends ("hang"), 200 ms into it. */
async function hungTurn(ctx: CheckContext) {
  const h = ctx.start();
  const sid = (await h.open(ctx.acp())).sessionId;
  const turn = h.prompt(sid, "hang");
  await sleep(200);
  return { h, sid, turn };
}

export const sessionChecks: Check[] = [
  {
    id: "R-CORE-3/error-data",
    covers: ["R-CORE-3"],
    title: "unknown sessions are -32001 unknown_session; adapter errors are -32000 with ErrorData (stage, retryable, uncertainEffect)",
    async run(ctx) {
      const h = ctx.start();
      const p = await h.fail("session/prompt", { sessionId: "no-such-session", text: "x" }, "unknown_session");
      assert.equal(p.code, -32001);
      const c = await h.fail("session/cancel", { sessionId: "no-such-session" }, "unknown_session");
      assert.equal(c.code, -32001);
      const spawn = await h.fail("session/open", { spec: { ...ctx.acp(), command: { ...ctx.acp().command, program: "/nonexistent/a4aa-conformance-agent" } } }, "spawn_failed");
      assert.equal(spawn.code, -32000);
      assert.equal(spawn.data?.stage, "spawn");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CORE-4/spec-and-session-ids",
    covers: ["R-CORE-4"],
    title: "unknown spec fields are invalid_params; a missing program is spawn_failed; a cwd that is not a directory fails; session ids are never reused",
    async run(ctx) {
      const h = ctx.start();
      const typo = await h.send("session/open", { spec: { ...ctx.acp(), command: { ...ctx.acp().command, programm: "x" } } });
      assert.equal(typo.error?.data?.code, "invalid_params", "an unknown field inside command");
      const missing = await h.fail("session/open", { spec: { ...ctx.acp(), command: { ...ctx.acp().command, program: "a4aa-conformance-no-such-program" } } }, "spawn_failed");
      assert.equal(missing.data?.stage, "spawn");
      const badCwd = await h.request("session/open", { spec: ctx.acp(), cwd: path.join(ctx.tmp, "does-not-exist") });
      assert.ok(badCwd.error, "a cwd that does not exist must fail session/open");
      assert.deepEqual(ctx.leftovers(), [], "nothing may run after the failed opens");
      const a = (await h.open(ctx.acp())).sessionId;
      const b = (await h.open(ctx.acp())).sessionId;
      assert.notEqual(a, b);
      await h.api.sessionClose({ sessionId: a });
      const c = (await h.open(ctx.acp())).sessionId;
      assert.ok(c !== a && c !== b, `session id ${c} was reused`);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CORE-5/output-limit",
    covers: ["R-CORE-5"],
    title: "a message line over maxOutputBytes fails the turn with output_limit and stops the agent",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open({ ...ctx.acp(), maxOutputBytes: 65536 })).sessionId;
      await h.fail("session/prompt", { sessionId: sid, text: "big:1" }, "output_limit");
      const left = await ctx.waitNoLeftovers(5000);
      assert.deepEqual(left, [], `the agent was not stopped: ${describe(left)}`);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CORE-6/events-before-response",
    covers: ["R-CORE-6"],
    title: "a turn's events all arrive before its response, under its session id; the outcome's text is the chunks concatenated",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      const r = await h.prompt(sid, "text:one ;slow:3;usage;text:three");
      assert.equal(r.error, undefined);
      const evs = h.eventsWithSeq(sid);
      assert.ok(evs.length >= 5, `only ${evs.length} events`);
      for (const e of evs) assert.ok(e.seq < r.seq, `an event (${e.event.type}) arrived after the prompt's response`);
      assert.equal(r.result?.text, "one 1 2 3 three");
      assert.equal(h.text(sid), "one 1 2 3 three");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-OPEN-1/acp-unoffered-choices",
    covers: ["R-OPEN-1"],
    title: "a mode or model the ACP agent did not offer is unsupported_selector (stage open), and the agent is already gone when the error arrives",
    async run(ctx) {
      const h = ctx.start();
      for (const options of [{ mode: "no-such-mode" }, { model: "no-such-model" }]) {
        const e = await h.fail("session/open", { spec: ctx.acp(), options }, "unsupported_selector");
        assert.equal(e.data?.stage, "open");
        const left = ctx.leftovers();
        assert.deepEqual(left, [], `the agent still ran when ${JSON.stringify(options)} was refused: ${describe(left)}`);
      }
      const ok = await h.open(ctx.acp(), { options: { mode: "code", model: "m2" } });
      assert.ok(ok.sessionId, "offered choices are accepted");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-OPEN-2/handshake-deadline",
    covers: ["R-OPEN-2"],
    title: "an ACP agent that never answers initialize fails session/open initialize_failed (retryable) once the spec's handshakeTimeoutMs has passed, and is gone by then",
    async run(ctx) {
      const h = ctx.start();
      const t0 = Date.now();
      const open = h.fail("session/open", { spec: ctx.acp(["--hang-init"], { handshakeTimeoutMs: 1000 }) }, "initialize_failed");
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("session/open of an agent that never answers initialize was not answered within 10 s (handshakeTimeoutMs 1000)")), 10_000);
      });
      const e = await Promise.race([open, bound]).finally(() => clearTimeout(timer));
      assert.ok(Date.now() - t0 >= 900, "answered before the deadline had passed");
      assert.equal(e.data?.stage, "initialize");
      assert.equal(e.data?.retryable, true, "a handshake that timed out may succeed when tried again");
      const left = ctx.leftovers();
      assert.deepEqual(left, [], `the agent still ran when the open failed: ${describe(left)}`);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-OPEN-1/refused-before-spawn",
    covers: ["R-OPEN-1", "R-CLI-1"],
    title: "selectors and resume a lane cannot honour (rpc mode, generic model/effort/resume) are unsupported_selector before anything is spawned",
    async run(ctx) {
      const h = ctx.start();
      const log = path.join(ctx.tmp, "started.log");
      const e = await h.fail("session/open", { spec: ctx.rpc([], {}, { A4AA_CONFORMANCE_LOG: log }), options: { mode: "plan" } }, "unsupported_selector");
      assert.equal(e.data?.stage, "open");
      assert.equal(existsSync(log), false, "the rpc agent was started before its mode was refused");
      for (const extra of [{ options: { model: "m1" } }, { options: { effort: "high" as const } }, { resume: "some-native-id" }]) {
        const g = await h.fail("session/open", { spec: ctx.cli("generic", {}, { A4AA_CONFORMANCE_LOG: log }), ...extra }, "unsupported_selector");
        assert.equal(g.data?.stage, "open", JSON.stringify(extra));
        assert.equal(existsSync(log), false, `the generic CLI was started for ${JSON.stringify(extra)}`);
      }
      // The log works: a plain rpc open does start the agent.
      const s = await h.open(ctx.rpc([], {}, { A4AA_CONFORMANCE_LOG: log }));
      assert.equal(existsSync(log), true, "the fake app-server did not log its start");
      await h.api.sessionClose({ sessionId: s.sessionId });
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-PROMPT-1/turn-in-progress",
    covers: ["R-PROMPT-1"],
    title: "a second prompt during a turn fails turn_in_progress (retryable); another session's turn runs meanwhile",
    async run(ctx) {
      const h = ctx.start();
      const a = (await h.open(ctx.acp())).sessionId;
      const b = (await h.open(ctx.acp())).sessionId;
      const long = h.prompt(a, "slow:200");
      await h.waitFor(() => h.events(a).length >= 1, 10_000, "the first turn's events");
      const e = await h.fail("session/prompt", { sessionId: a, text: "text:x" }, "turn_in_progress");
      assert.equal(e.data?.retryable, true, "turn_in_progress is retryable");
      const other = await h.prompt(b, "slow:3");
      assert.equal(other.result?.text, "1 2 3 ");
      let done = false;
      void long.then(() => (done = true));
      await sleep(10);
      assert.equal(done, false, "the other session's turn ran concurrently");
      await h.api.sessionCancel({ sessionId: a });
      assert.equal((await long).result?.stopReason, "cancelled");
      assert.equal((await h.api.sessionPrompt({ sessionId: a, text: "text:again" })).text, "again", "the session takes a new turn afterwards");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-PROMPT-2/R-CLOSE-2/closing-session",
    covers: ["R-PROMPT-2", "R-CLOSE-2"],
    title: "while a close waits for an agent that ignores cancel: prompts fail session_closing; concurrent closes all answer after the one cleanup; closing again or an unknown id answers {}",
    timeoutMs: 60_000,
    async run(ctx) {
      const { h, sid, turn } = await hungTurn(ctx);
      const closes = [h.request("session/close", { sessionId: sid }), h.request("session/close", { sessionId: sid })];
      await sleep(100);
      await h.fail("session/prompt", { sessionId: sid, text: "text:x" }, "session_closing");
      const first = await Promise.race(closes);
      const left = ctx.leftovers();
      assert.ok(first.result?.processes, `close failed: ${JSON.stringify(first.error)}`);
      assert.deepEqual(left, [], `a close answered before the cleanup: ${describe(left)}`);
      const both = await Promise.all(closes);
      assert.deepEqual(both.map((r) => r.result), [first.result, first.result], "concurrent closes share one cleanup (and its counts)");
      const t = await turn;
      assert.ok(t.result?.stopReason === "cancelled" || t.error?.data?.code === "session_closed", `the hung turn settled with ${JSON.stringify(t.result ?? t.error)}`);
      assert.deepEqual((await h.request("session/close", { sessionId: sid })).result, { processes: { ended: 0, killed: 0 } }, "closing a closed session");
      assert.deepEqual((await h.request("session/close", { sessionId: "never-known" })).result, { processes: { ended: 0, killed: 0 } }, "closing an unknown id");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CANCEL-1/ack-after-delivery",
    covers: ["R-CANCEL-1"],
    title: "cancel without a turn is {}; during a turn {} then the prompt settles cancelled promptly; unknown ids are unknown_session",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      assert.deepEqual(await h.api.sessionCancel({ sessionId: sid }), {}, "no turn to cancel");
      const turn = h.prompt(sid, "slow:100");
      await h.waitFor(() => h.events(sid).length >= 2, 10_000, "the turn's first events");
      const c = await h.request("session/cancel", { sessionId: sid });
      assert.deepEqual(c.result, {}, `cancel failed: ${JSON.stringify(c.error)}`);
      const r = await Promise.race([turn, sleep(8000).then(() => null)]);
      assert.ok(r, "the prompt did not settle within 8 s of the cancel's {} (was the cancel delivered before it was answered?)");
      assert.equal(r.result?.stopReason, "cancelled", `the prompt settled with ${JSON.stringify(r.result ?? r.error)}`);
      assert.ok(c.seq < r.seq, "the cancel's response precedes the prompt's");
      // The fake agent stops at most one 50 ms tick after it reads the cancel: if {} came
      // after delivery, only chunks already in transit can follow it.
      const late = h.eventsWithSeq(sid).filter((e) => e.seq > c.seq && e.event.type === "messageChunk").length;
      assert.ok(late <= 10, `${late} chunks arrived after the cancel's {}: it was answered before the agent got the cancel`);
      const e = await h.fail("session/cancel", { sessionId: "no-such-session" }, "unknown_session");
      assert.equal(e.code, -32001);
      assert.equal((await h.api.sessionPrompt({ sessionId: sid, text: "text:again" })).text, "again", "usable after cancel");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CANCEL-2/notification-ignored",
    covers: ["R-CANCEL-2"],
    title: "a notification-form session/cancel does not cancel the turn and is warned about on stderr",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      const turn = h.prompt(sid, "slow:8");
      await h.waitFor(() => h.events(sid).length >= 1, 10_000, "the turn's first event");
      const before = h.stderr.length;
      await h.notify("session/cancel", { sessionId: sid });
      const r = await turn;
      assert.equal(r.result?.stopReason, "endTurn", `the notification was applied: ${JSON.stringify(r.result ?? r.error)}`);
      assert.equal(r.result?.text, "1 2 3 4 5 6 7 8 ");
      await h.waitFor(() => /cancel/i.test(h.stderr.slice(before)), 2000, "a warning about the notification on stderr");
      assert.equal(h.received.filter((x) => x.msg?.id === null).length, 0, "a notification gets no response");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CLOSE-1/mid-turn",
    covers: ["R-CLOSE-1", "R-SUP-1"],
    title: "close during a turn: the prompt settles cancelled before close answers, and the whole tree (grandchildren too) is gone when it does",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      await h.api.sessionPrompt({ sessionId: sid, text: "grandchild" });
      assert.ok(ctx.leftovers().length >= 3, "the agent and its two grandchildren run");
      const turn = h.prompt(sid, "slow:200");
      await h.waitFor(() => h.events(sid).filter((e) => e.type === "messageChunk").length >= 3, 10_000, "the turn's events");
      const c = await h.request("session/close", { sessionId: sid });
      const left = ctx.leftovers();
      assert.ok(c.result?.processes, `close failed: ${JSON.stringify(c.error)}`);
      assert.deepEqual(left, [], `processes left when close answered: ${describe(left)}`);
      const r = await turn;
      assert.equal(r.result?.stopReason, "cancelled", `the turn settled with ${JSON.stringify(r.result ?? r.error)}`);
      assert.ok(r.seq < c.seq, "the prompt settled before close answered");
      await h.fail("session/prompt", { sessionId: sid, text: "text:x" }, "unknown_session");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CLOSE-1/unacknowledged",
    covers: ["R-CLOSE-1"],
    title: "close of a turn the agent never ends: after the grace period the prompt fails session_closed (uncertainEffect), then the tree is gone, then close answers",
    timeoutMs: 60_000,
    async run(ctx) {
      const { h, sid, turn } = await hungTurn(ctx);
      const c = await h.request("session/close", { sessionId: sid });
      const left = ctx.leftovers();
      assert.ok(c.result?.processes, `close failed: ${JSON.stringify(c.error)}`);
      assert.deepEqual(left, [], `processes left when close answered: ${describe(left)}`);
      const r = await turn;
      assert.equal(r.error?.data?.code, "session_closed", `the hung turn settled with ${JSON.stringify(r.result ?? r.error)}`);
      assert.equal(r.error?.data?.uncertainEffect, true);
      assert.ok(r.seq < c.seq, "the prompt settled before close answered");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CLOSE-3/success-removes-entry",
    covers: ["R-CLOSE-3"],
    title: "a successful close removes the session: prompt and cancel then answer unknown_session; close again answers {}",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      await h.api.sessionPrompt({ sessionId: sid, text: "text:x" });
      assert.ok((await h.api.sessionClose({ sessionId: sid })).processes);
      await h.fail("session/prompt", { sessionId: sid, text: "text:x" }, "unknown_session");
      await h.fail("session/cancel", { sessionId: sid }, "unknown_session");
      assert.deepEqual(await h.api.sessionClose({ sessionId: sid }), { processes: { ended: 0, killed: 0 } });
      assert.equal(await h.end(), 0);
    },
  },
];
