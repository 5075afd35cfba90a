// The generic driver through a real `a4aa serve`: any program over pipes (prompt as the
// last argument or on stdin) and over a PTY (escape sequences stripped, idle end).
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { FIXTURES, groupAlive, nodeSpec, open, RpcFailure, sharedHost, text } from "./helpers/host.js";

const ECHO = path.join(FIXTURES, "cli/echo.mjs");
const TTY = path.join(FIXTURES, "cli/tty-only.mjs");

describe("cli lane, generic driver over pipes", () => {
  const withHost = sharedHost();
  it("passes the prompt as the last argument and streams stdout as messageChunks", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: nodeSpec("generic", ECHO) });
      assert.equal(s.nativeSessionId, null);
      assert.equal(s.capabilities.lane, "cli");
      assert.equal(s.capabilities.resume, false);
      assert.equal(s.agentInfo, null);
      const out = await h.request("session/prompt", { sessionId: s.sessionId, text: "hello there" });
      assert.equal(out.stopReason, "endTurn");
      assert.equal(out.text, "echo: hello there\n");
      assert.equal(text(h.eventsOf(s.sessionId)), "echo: hello there\n");
      // One process per turn: a second turn works the same way.
      const out2 = await h.request("session/prompt", { sessionId: s.sessionId, text: "again" });
      assert.equal(out2.text, "echo: again\n");
    }));

  it("writes the prompt to stdin with promptVia: stdin", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: { ...nodeSpec("generic", ECHO), promptVia: "stdin", extraArgs: ["--stdin"] } });
      const out = await h.request("session/prompt", { sessionId: s.sessionId, text: "from stdin" });
      assert.equal(out.text, "echo: from stdin\n");
    }));

  it("R-SUP-2: a non-zero exit is agent_exited with the stderr tail, and stderr lines are events", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: nodeSpec("generic", ECHO) });
      const err = await h.request("session/prompt", { sessionId: s.sessionId, text: "fail now" }).catch((e) => e);
      assert.ok(err instanceof RpcFailure);
      assert.equal(err.code, "agent_exited");
      assert.equal(err.error.data!.uncertainEffect, true);
      assert.match(err.error.data!.detail!, /exited with code 2.*cannot answer that/s);
      assert.ok(h.eventsOf(s.sessionId).some((e) => e.type === "stderr" && e.text === "echo: cannot answer that"));
      const again = await h.request("session/prompt", { sessionId: s.sessionId, text: "x" }).catch((e) => e);
      assert.equal(again.code, "agent_exited");
    }));

  it("R-CANCEL-1: cancel during a slow stream settles cancelled and the process group is gone", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: nodeSpec("generic", ECHO) });
      const p = h.request("session/prompt", { sessionId: s.sessionId, text: "slow" });
      await h.waitForEvent((e) => e.type === "messageChunk");
      const groups = [...h.groups];
      const t0 = Date.now();
      assert.deepEqual(await h.request("session/cancel", { sessionId: s.sessionId }), {});
      const out = await p;
      const ms = Date.now() - t0;
      assert.equal(out.stopReason, "cancelled");
      assert.ok(ms < 10_000, `settled in ${ms} ms`);
      assert.ok(groups.length > 0);
      for (const g of groups) assert.deepEqual(groupAlive(g), [], `group ${g} is gone`);
    }));

  it("output over maxOutputBytes fails the turn with output_limit", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: { ...nodeSpec("generic", ECHO), maxOutputBytes: 50 } });
      const err = await h.request("session/prompt", { sessionId: s.sessionId, text: "slow" }).catch((e) => e);
      assert.equal(err.code, "output_limit");
    }));

  it("R-OPEN-1: selectors, resume, pty options and permission presets it cannot honour are refused before spawning", () =>
    withHost(async (h) => {
      const spec = nodeSpec("generic", ECHO);
      for (const params of [
        { spec, options: { model: "m" } },
        { spec, options: { effort: "high" } },
        { spec, options: { mode: "plan" } },
        { spec, options: { permission: "ask" } },
        { spec, options: { permission: "bypass" } },
        { spec, resume: "abc" },
      ]) {
        const err = await h.request("session/open", params).catch((e) => e);
        assert.ok(err instanceof RpcFailure, JSON.stringify(params));
        assert.equal(err.code, "unsupported_selector", JSON.stringify(params));
        assert.equal(err.error.data!.stage, "open");
      }
      assert.equal(h.groups.size, 0, "nothing was spawned");
      const s = await open(h, { spec });
      const err = await h.request("session/prompt", { sessionId: s.sessionId, text: "x", model: "m" }).catch((e) => e);
      assert.equal(err.code, "unsupported_selector");
      assert.equal(err.error.data!.stage, "prompt");
    }));

  it("a missing program is spawn_failed at the first turn", () =>
    withHost(async (h) => {
      const spec = { ...nodeSpec("generic", ECHO), command: { program: "/nonexistent/program", args: [], env: { policy: "sanitized" } } };
      const s = await open(h, { spec });
      const err = await h.request("session/prompt", { sessionId: s.sessionId, text: "x" }).catch((e) => e);
      assert.equal(err.code, "spawn_failed");
    }));
});

describe("cli lane, generic driver over a PTY", () => {
  const withHost = sharedHost();
  it("runs a program that refuses pipes; escape sequences are stripped; the PTY has the asked size", () =>
    withHost(async (h) => {
      // Over pipes it refuses to run…
      const piped = await open(h, { spec: nodeSpec("generic", TTY) });
      const err = await h.request("session/prompt", { sessionId: piped.sessionId, text: "hi" }).catch((e) => e);
      assert.equal(err.code, "agent_exited");
      assert.match(err.error.data!.detail!, /must be a terminal/);
      // …under a PTY it answers and exits.
      const s = await open(h, { spec: { ...nodeSpec("generic", TTY), transport: "pty", pty: { cols: 100, rows: 30 } } });
      const out = await h.request("session/prompt", { sessionId: s.sessionId, text: "hi" });
      assert.equal(out.stopReason, "endTurn");
      assert.equal(out.text, "answer: HI (100x30)\n");
      assert.doesNotMatch(text(h.eventsOf(s.sessionId)), /\x1b/);
    }));

  it("types the prompt (promptVia: stdin), drops its echo, and ends the turn when output goes quiet", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: { ...nodeSpec("generic", TTY), transport: "pty", promptVia: "stdin", pty: { idleMs: 400 } } });
      const t0 = Date.now();
      const out = await h.request("session/prompt", { sessionId: s.sessionId, text: "hello" });
      assert.equal(out.stopReason, "endTurn");
      assert.equal(out.text, "> answer: HELLO (120x40)\n> ");
      assert.ok(Date.now() - t0 < 5000);
      assert.deepEqual(h.leftovers(), [], "the idle program was ended");
    }));

  it("R-CANCEL-1: cancel under a PTY settles cancelled and ends the process group", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: { ...nodeSpec("generic", TTY), transport: "pty", promptVia: "stdin", pty: { idleMs: 5000 } } });
      const p = h.request("session/prompt", { sessionId: s.sessionId, text: "slow" });
      await h.waitForEvent((e) => e.type === "messageChunk" && String(e.text).includes("tick"));
      await h.request("session/cancel", { sessionId: s.sessionId });
      const out = await p;
      assert.equal(out.stopReason, "cancelled");
      assert.deepEqual(h.leftovers(), []);
    }));

  it("transport pty is refused for the structured drivers", () =>
    withHost(async (h) => {
      const err = await h.request("session/open", { spec: { ...nodeSpec("codex", ECHO), transport: "pty" } }).catch((e) => e);
      assert.equal(err.code, "unsupported_selector");
    }));
});
