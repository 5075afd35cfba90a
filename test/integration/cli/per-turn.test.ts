// The per-turn drivers (codex, gemini, opencode, cursorAgent, amp) through a real
// `a4aa serve`, against a fake CLI that plays each CLI's stream format from
// test/fixtures/transcripts/<driver>/ and logs the argv it was given.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { FIXTURES, type Host, nodeSpec, open, RpcFailure, sharedHost, text } from "./helpers/host.js";

const PLAYER = path.join(FIXTURES, "cli/player.mjs");
const tmp = mkdtempSync(path.join(os.tmpdir(), "a4aa-cli-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
let logN = 0;

interface Case {
  driver: string;
  text: string;
  /** The id the CLI tells (and that resume flags must carry). */
  nativeId: string;
  usage?: Record<string, number>;
  /** Where the usage of a resumed second turn ("again") is the difference of running totals. */
  againUsage?: Record<string, number>;
  resumeArgs: (id: string) => string[];
  selectors: { options: Record<string, unknown>; args: string[] };
  refused: Record<string, unknown>[];
  error: { code: string; detail: RegExp };
  hasThinking: boolean;
}

const CASES: Case[] = [
  {
    driver: "codex",
    text: "Hello from Codex.",
    nativeId: "0199a213-81c0-7800-8aa1-bbab2a035a53",
    usage: { inputTokens: 120, cachedInputTokens: 20, outputTokens: 8, totalTokens: 128 },
    againUsage: { inputTokens: 180, cachedInputTokens: 30, outputTokens: 12, totalTokens: 192 },
    resumeArgs: (id) => ["exec", "resume", "--json", "--skip-git-repo-check", "-c", 'sandbox_mode="read-only"', "--", id],
    selectors: {
      options: { model: "gpt-5.5", effort: "high", permission: "acceptEdits" },
      args: ["exec", "--json", "--skip-git-repo-check", "-m", "gpt-5.5", "-c", 'model_reasoning_effort="high"', "-c", 'sandbox_mode="workspace-write"'],
    },
    refused: [{ mode: "plan" }, { permission: "ask" }],
    error: { code: "agent_failed", detail: /500 Internal Server Error: mock failure/ },
    hasThinking: true,
  },
  {
    driver: "gemini",
    text: "Hello from Gemini.",
    nativeId: "3d1c6a2e-9f7b-4c1e-8a55-2b8f0c0e9d11",
    usage: { inputTokens: 90, outputTokens: 6, cachedInputTokens: 10, totalTokens: 96 },
    resumeArgs: (id) => ["-o", "stream-json", "--resume", id, "--approval-mode", "default"],
    selectors: { options: { model: "gemini-2.5-flash", mode: "plan" }, args: ["-o", "stream-json", "--session-id", "*", "-m", "gemini-2.5-flash", "--approval-mode", "plan"] },
    refused: [{ effort: "high" }, { permission: "ask" }, { mode: "bogus" }],
    error: { code: "agent_failed", detail: /API Error: Internal Server Error/ },
    hasThinking: true,
  },
  {
    driver: "opencode",
    text: "Hello from opencode.",
    nativeId: "ses_1f2e3d4c5b6aXYZ",
    usage: { inputTokens: 120, outputTokens: 10, cachedInputTokens: 20, reasoningTokens: 0, totalTokens: 130, costUsd: 0.0015 },
    resumeArgs: (id) => ["run", "--format", "json", "--thinking", "--session", id],
    selectors: {
      options: { model: "mock/m1", mode: "plan", effort: "high", permission: "bypass" },
      args: ["run", "--format", "json", "--thinking", "--model", "mock/m1", "--agent", "plan", "--variant", "high", "--auto"],
    },
    refused: [{ permission: "acceptEdits" }, { permission: "ask" }],
    error: { code: "agent_failed", detail: /Internal Server Error/ },
    hasThinking: true,
  },
  {
    driver: "cursorAgent",
    text: "Hello from Cursor.",
    nativeId: "c6b62c6f-7ead-4fd6-9922-e952131177ff",
    againUsage: { inputTokens: 60, outputTokens: 5, cachedInputTokens: 10, totalTokens: 65 },
    resumeArgs: (id) => ["-p", "--output-format", "stream-json", "--trust", "--resume", id],
    selectors: { options: { model: "gpt-5", mode: "plan", permission: "bypass" }, args: ["-p", "--output-format", "stream-json", "--trust", "--model", "gpt-5", "--mode", "plan", "--force"] },
    refused: [{ effort: "low" }, { permission: "acceptEdits" }],
    error: { code: "agent_exited", detail: /usage limit/ },
    hasThinking: true,
  },
  {
    driver: "amp",
    text: "Hello from Amp.",
    nativeId: "T-5928a90d-d53b-488f-a829-4e36442142ee",
    usage: { inputTokens: 130, outputTokens: 7, cachedInputTokens: 30, totalTokens: 137 },
    resumeArgs: (id) => ["threads", "continue", id, "-x", "--stream-json"],
    selectors: { options: { mode: "rush", permission: "bypass" }, args: ["-x", "--stream-json", "--mode", "rush", "--dangerously-allow-all"] },
    refused: [{ model: "claude" }, { effort: "high" }],
    error: { code: "agent_failed", detail: /Internal server error/ },
    hasThinking: true,
  },
];

function spec(driver: string, extra: Record<string, unknown> = {}) {
  const s = nodeSpec(driver, PLAYER, extra);
  (s.command as { args: string[] }).args.push(driver);
  return s;
}

function logFile(): string {
  return path.join(tmp, `argv-${++logN}.log`);
}
const argvs = (file: string): string[][] =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).argv);

async function prompt(h: Host, sessionId: string, t: string): Promise<any> {
  return h.request("session/prompt", { sessionId, text: t });
}

for (const c of CASES) {
  describe(`cli lane, ${c.driver} driver (transcripts)`, () => {
    const withHost = sharedHost();
    it("text: messageChunks, endTurn, the CLI's session id as sessionInfo, usage", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec(c.driver) });
        assert.equal(s.capabilities.permissions, false);
        assert.equal(s.capabilities.resume, true);
        const out = await prompt(h, s.sessionId, "text");
        assert.equal(out.stopReason, "endTurn");
        assert.equal(out.text, c.text);
        const ev = h.eventsOf(s.sessionId);
        assert.equal(text(ev), c.text);
        assert.ok(ev.some((e) => e.type === "sessionInfo" && e.nativeSessionId === c.nativeId), "sessionInfo with the CLI's id");
        if (c.usage) {
          assert.deepEqual(out.usage, c.usage);
          assert.ok(ev.some((e) => e.type === "usage"));
        }
      }));

    it("thinking and tools: thoughtChunks, toolCall and toolCallUpdate paired by id", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec(c.driver) });
        await prompt(h, s.sessionId, "thinking");
        if (c.hasThinking) assert.ok(text(h.eventsOf(s.sessionId), "thoughtChunk").length > 0, "thoughts");
        const before = h.eventsOf(s.sessionId).length;
        const out = await prompt(h, s.sessionId, "tool");
        assert.equal(out.stopReason, "endTurn");
        const ev = h.eventsOf(s.sessionId).slice(before);
        const call = ev.find((e) => e.type === "toolCall");
        assert.ok(call, "a toolCall");
        assert.equal(call.kind, "execute");
        assert.match(String(call.title), /echo hi/);
        const update = ev.find((e) => e.type === "toolCallUpdate" && e.toolCallId === call.toolCallId && e.status === "completed");
        assert.ok(update, "its completed update");
        assert.match((update.contentTexts as string[]).join(""), /hi/);
        assert.ok(ev.findIndex((e) => e === call) < ev.findIndex((e) => e === update));
      }));

    it("resume: the next turn continues the CLI's session by its resume flag; session/open resume too", () =>
      withHost(async (h) => {
        const log = logFile();
        const s = await open(h, { spec: spec(c.driver), env: { FAKE_LOG: log } });
        await prompt(h, s.sessionId, "text");
        const second = await prompt(h, s.sessionId, "again");
        if (c.againUsage) assert.deepEqual(second.usage, c.againUsage, "the turn's own usage");
        const [, argv2] = argvs(log);
        const want = c.resumeArgs(c.nativeId);
        assert.deepEqual(argv2.slice(0, want.length), want, JSON.stringify(argv2));
        assert.equal(argv2[argv2.length - 1].replace(/^--prompt=/, ""), "again");
        const log2 = logFile();
        const r = await open(h, { spec: spec(c.driver), resume: "prior-id", env: { FAKE_LOG: log2 } });
        assert.equal(r.nativeSessionId, "prior-id");
        await prompt(h, r.sessionId, "args");
        const [argv3] = argvs(log2);
        const want3 = c.resumeArgs("prior-id");
        assert.deepEqual(argv3.slice(0, want3.length), want3, JSON.stringify(argv3));
      }));

    it("R-CANCEL-1: cancel during a slow turn settles cancelled within the grace and ends the process group", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec(c.driver) });
        const p = prompt(h, s.sessionId, "slow");
        // The CLI has started once it told its session id.
        await h.waitForEvent((e, sid) => sid === s.sessionId && e.type === "sessionInfo");
        await h.cancelRunningTurn(s.sessionId, p);
        // The session is still usable.
        assert.equal((await prompt(h, s.sessionId, "text")).stopReason, "endTurn");
      }));

    it("error: the CLI's reported failure is an error response", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec(c.driver) });
        const err = await prompt(h, s.sessionId, "error").catch((e) => e);
        assert.ok(err instanceof RpcFailure, String(err));
        assert.equal(err.code, c.error.code);
        assert.match(err.error.data!.detail!, c.error.detail);
      }));

    it("R-OPEN-1: selectors become the CLI's flags (before extraArgs and the prompt); others are unsupported_selector", () =>
      withHost(async (h) => {
        const log = logFile();
        const s = await open(h, { spec: spec(c.driver, { extraArgs: ["--extra"] }), options: c.selectors.options, env: { FAKE_LOG: log } });
        assert.equal(s.capabilities.selectors.permission, true);
        await prompt(h, s.sessionId, "args");
        const [argv] = argvs(log);
        const head = argv.slice(0, c.selectors.args.length).map((a, i) => (c.selectors.args[i] === "*" ? "*" : a));
        assert.deepEqual(head, c.selectors.args, JSON.stringify(argv));
        assert.equal(argv[argv.length - 1].replace(/^--prompt=/, ""), "args");
        assert.ok(argv.indexOf("--extra") > c.selectors.args.length - 1);
        for (const options of c.refused) {
          const err = await h.request("session/open", { spec: spec(c.driver), options }).catch((e) => e);
          assert.equal(err.code, "unsupported_selector", JSON.stringify(options));
        }
      }));
  });
}

describe("cli lane, per-turn runner details", () => {
  const withHost = sharedHost();
  it("lines that are not JSON and unknown events are raw events; the turn goes on", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("codex") });
      const out = await prompt(h, s.sessionId, "garbage");
      assert.equal(out.text, "Still fine.");
      const raws = h.eventsOf(s.sessionId).filter((e) => e.type === "raw");
      assert.ok(raws.some((e) => e.payload === "not json at all" && e.source === "stdout"));
      assert.ok(raws.some((e) => (e.payload as { type?: string }).type === "future.event"));
    }));

  it("R-HOSTILE-1: a line nested 100,000 deep mid-turn is a raw event of its text; the turn ends normally", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("codex") });
      const out = await prompt(h, s.sessionId, "deep");
      assert.equal(out.stopReason, "endTurn");
      assert.equal(out.text, "Still fine.");
      const deep = h.eventsOf(s.sessionId).filter((e) => e.type === "raw" && typeof e.payload === "string" && e.payload.startsWith('{"type":"deep"'));
      assert.equal(deep.length, 1);
      assert.equal((deep[0] as unknown as { payload: string }).payload.length, '{"type":"deep","x":}'.length + 200_000);
      // The session and the sidecar go on.
      assert.equal((await prompt(h, s.sessionId, "text")).text, "Hello from Codex.");
    }));

  it("issue 29: codex's 'Reconnecting...' lines are notice events (retrying), the turn goes on", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("codex") });
      const out = await prompt(h, s.sessionId, "reconnect");
      assert.equal(out.stopReason, "endTurn");
      assert.equal(out.text, "Back online.");
      const notices = h.eventsOf(s.sessionId).filter((e) => e.type === "notice");
      assert.deepEqual(notices, [
        { type: "notice", text: "Reconnecting... waiting for network (Connection failed: error sending request)", retrying: true },
        { type: "notice", text: "Reconnecting... 2/5 (stream disconnected before completion)", retrying: true },
      ]);
    }));

  it("after the terminal event a lingering CLI is ended after a short grace", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("codex") });
      const t0 = Date.now();
      const out = await prompt(h, s.sessionId, "linger");
      assert.equal(out.stopReason, "endTurn");
      assert.ok(Date.now() - t0 < 6000);
      assert.deepEqual(h.leftovers(), []);
    }));

  it("a CLI that ignores SIGTERM is killed; the cancel still settles within the grace", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("codex") });
      const p = prompt(h, s.sessionId, "stubborn");
      await h.waitForEvent((e) => e.type === "sessionInfo");
      const t0 = Date.now();
      await h.request("session/cancel", { sessionId: s.sessionId });
      const out = await p;
      assert.equal(out.stopReason, "cancelled");
      assert.ok(Date.now() - t0 < 10_000);
      assert.deepEqual(h.leftovers(), []);
    }));

  it("R-SUP-2: an exit without a terminal event is agent_exited with the stderr tail; the session is then only closable", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("codex") });
      const err = await prompt(h, s.sessionId, "crash").catch((e) => e);
      assert.equal(err.code, "agent_exited");
      assert.equal(err.error.data.uncertainEffect, true);
      assert.match(err.error.data.detail, /code 101.*panicked/s);
      assert.equal((await prompt(h, s.sessionId, "text").catch((e) => e)).code, "agent_exited");
    }));

  it("more stdout than maxOutputBytes in a turn fails it with output_limit", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("codex", { maxOutputBytes: 100_000 }) });
      const err = await prompt(h, s.sessionId, "big").catch((e) => e);
      assert.equal(err.code, "output_limit");
    }));

  it("cursorAgent: partial output is de-duplicated (copies with model_call_id, the final recap)", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("cursorAgent") });
      const out = await prompt(h, s.sessionId, "partial");
      assert.equal(out.text, "Hello!");
    }));

  it("cursorAgent: a failed tool is a failed toolCallUpdate; a failed result is agent_failed", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("cursorAgent") });
      await prompt(h, s.sessionId, "tool");
      const ev = h.eventsOf(s.sessionId);
      const read = ev.find((e) => e.type === "toolCall" && e.kind === "read");
      assert.ok(read);
      assert.ok(ev.some((e) => e.type === "toolCallUpdate" && e.toolCallId === read.toolCallId && e.status === "failed"));
      const err = await prompt(h, s.sessionId, "failed").catch((e) => e);
      assert.equal(err.code, "agent_failed");
      assert.match(err.error.data.detail, /Model unavailable/);
    }));

  it("R-USAGE-1: gemini: an error event ('quota exceeded') followed by an odd exit code is quota_exhausted; GEMINI_CLI_NO_RELAUNCH is set", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("gemini") });
      const err = await prompt(h, s.sessionId, "error-event").catch((e) => e);
      assert.equal(err.code, "quota_exhausted");
      assert.equal(err.error.data.retryable, false);
      assert.match(err.error.data.detail, /quota exceeded/);
    }));

  it("opencode: a crash without output is agent_exited", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: spec("opencode") });
      const err = await prompt(h, s.sessionId, "crash").catch((e) => e);
      assert.equal(err.code, "agent_exited");
      assert.match(err.error.data.detail, /Unexpected token/);
    }));
});
