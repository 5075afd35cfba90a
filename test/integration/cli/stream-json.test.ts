// The claudeCode and qwen drivers through a real `a4aa serve`, against a fake CLI that
// speaks their stream-json and control protocol (test/fixtures/cli/fake-claude.mjs).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { FIXTURES, groupAlive, type Host, nodeSpec, open, RpcFailure, sharedHost, text } from "./helpers/host.js";

const FAKE = path.join(FIXTURES, "cli/fake-claude.mjs");
const tmp = mkdtempSync(path.join(os.tmpdir(), "a4aa-sj-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
let logN = 0;
const logFile = () => path.join(tmp, `argv-${++logN}.log`);
const argvs = (file: string): string[][] =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).argv);
const prompt = (h: Host, sessionId: string, t: string): Promise<any> => h.request("session/prompt", { sessionId, text: t });

interface Case {
  driver: "claudeCode" | "qwen";
  baseArgs: (id: string) => string[];
  resumeArgs: (id: string) => string[];
  selectors: { options: Record<string, unknown>; args: string[] };
  bypassArgs: string[];
  refused: Record<string, unknown>[];
  error: RegExp;
}

const CASES: Case[] = [
  {
    driver: "claudeCode",
    baseArgs: (id) => ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio", "--session-id", id],
    resumeArgs: (id) => ["--resume", id],
    selectors: { options: { model: "opus", effort: "high", mode: "plan" }, args: ["--model", "opus", "--effort", "high", "--permission-mode", "plan"] },
    bypassArgs: ["--permission-mode", "bypassPermissions"],
    refused: [{ effort: "minimal" }, { mode: "bogus" }],
    error: /API Error: 500/,
  },
  {
    driver: "qwen",
    baseArgs: (id) => ["--input-format", "stream-json", "--output-format", "stream-json", "--include-partial-messages", "--session-id", id, "--approval-mode", "default"],
    resumeArgs: (id) => ["--resume", id],
    selectors: { options: { model: "qwen3-coder-plus", mode: "plan" }, args: ["--model", "qwen3-coder-plus", "--approval-mode", "plan"] },
    bypassArgs: ["--approval-mode", "yolo"],
    refused: [{ effort: "high" }, { mode: "acceptEdits" }],
    error: /\[API Error: 500/,
  },
];

const contains = (argv: string[], run: string[]) => argv.some((_, i) => run.every((a, j) => argv[i + j] === a));

for (const c of CASES) {
  const spec = (extra: Record<string, unknown> = {}) => nodeSpec(c.driver, FAKE, extra);

  describe(`cli lane, ${c.driver} driver (fake stream-json CLI)`, () => {
    const withHost = sharedHost();
    it("text: one process per session, pre-assigned session id, deltas as messageChunks, usage with costUsd", () =>
      withHost(async (h) => {
        const log = logFile();
        const s = await open(h, { spec: spec(), env: { FAKE_LOG: log } });
        assert.match(s.nativeSessionId, /^[0-9a-f-]{36}$/);
        assert.equal(s.capabilities.permissions, true);
        assert.equal(s.capabilities.resume, true);
        const out = await prompt(h, s.sessionId, "text");
        assert.equal(out.stopReason, "endTurn");
        assert.equal(out.text, "Hello from Claude.");
        assert.deepEqual(out.usage, { inputTokens: 140, outputTokens: 12, cachedInputTokens: 40, totalTokens: 152, costUsd: 0.0125 });
        const again = await prompt(h, s.sessionId, "again");
        assert.equal(again.text, "Again.");
        // Running totals (Claude Code's cost, Qwen's tokens) are reported as the turn's own.
        assert.deepEqual(again.usage, { inputTokens: 140, outputTokens: 12, cachedInputTokens: 40, totalTokens: 152, costUsd: 0.0125 });
        const all = argvs(log);
        assert.equal(all.length, 1, "one process for both turns");
        assert.deepEqual(all[0], c.baseArgs(s.nativeSessionId));
      }));

    it("thinking and tools: thoughtChunks without repeats, toolCall and its result paired by id", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec() });
        const out = await prompt(h, s.sessionId, "thinking");
        assert.equal(out.text, "Thought.", "streamed text is not repeated from the assistant block");
        assert.equal(text(h.eventsOf(s.sessionId), "thoughtChunk"), "Let me think about it.");
        const n = h.eventsOf(s.sessionId).length;
        await prompt(h, s.sessionId, "tool");
        const ev = h.eventsOf(s.sessionId).slice(n);
        const call = ev.find((e) => e.type === "toolCall");
        assert.ok(call);
        assert.deepEqual([call.toolCallId, call.kind, call.title], ["toolu_01", "execute", "Bash: echo hi"]);
        const upd = ev.find((e) => e.type === "toolCallUpdate" && e.toolCallId === "toolu_01");
        assert.equal(upd?.status, "completed");
        assert.deepEqual(upd?.contentTexts, ["hi"]);
      }));

    it("R-PERM-1: can_use_tool is relayed as permission/request; allow, allowAlways and deny reach the CLI", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec() });
        const answers = [{ selected: "allow" }, { selected: "allowAlways" }, { selected: "deny" }, { cancelled: true }, { selected: "bogus" }];
        const results: string[] = [];
        for (const a of answers) {
          h.onPermission = () => a;
          results.push((await prompt(h, s.sessionId, "perm")).text);
        }
        assert.deepEqual(results, ["It was allowed.", "It was allowed.", "It was denied.", "It was denied.", "It was denied."]);
        const req = h.permissionRequests[0];
        assert.equal(req.toolCallId, "toolu_02");
        assert.equal(req.kind, "execute");
        assert.deepEqual(
          req.options.map((o: any) => [o.optionId, o.kind]),
          [
            ["allow", "allowOnce"],
            ["allowAlways", "allowAlways"],
            ["deny", "rejectOnce"],
          ],
        );
        assert.ok(req.contentTexts.includes("touch x"));
        assert.equal(req.raw.request.subtype, "can_use_tool");
        const resolved = h.eventsOf(s.sessionId).filter((e) => e.type === "permissionResolved");
        assert.deepEqual(
          resolved.map((e) => [e.outcome, e.optionId ?? null, e.decidedBy]),
          [
            ["selected", "allow", "host"],
            ["selected", "allowAlways", "host"],
            ["selected", "deny", "host"],
            ["cancelled", null, "host"],
            ["cancelled", null, "policy"],
          ],
        );
        // The "always" answer carried the CLI's own suggestion.
        const always = h.eventsOf(s.sessionId).filter((e) => e.type === "toolCallUpdate" && (e.contentTexts as string[] | undefined)?.includes("allowed always"));
        assert.equal(always.length, 1);
      }));

    it("presets decide without the host: readOnly rejects a shell command, bypass allows it", () =>
      withHost(async (h) => {
        const ro = await open(h, { spec: spec(), options: { permission: "readOnly" } });
        assert.equal((await prompt(h, ro.sessionId, "perm")).text, "It was denied.");
        const log = logFile();
        const by = await open(h, { spec: spec(), options: { permission: "bypass" }, env: { FAKE_LOG: log } });
        assert.equal((await prompt(h, by.sessionId, "perm")).text, "It was allowed.");
        assert.equal(h.permissionRequests.length, 0);
        assert.ok(contains(argvs(log)[0], c.bypassArgs));
        const decided = h.events.filter((e) => e.event.type === "permissionResolved").map((e) => [e.event.optionId, e.event.decidedBy]);
        assert.deepEqual(decided, [
          ["deny", "policy"],
          ["allow", "policy"],
        ]);
      }));

    it("R-PERM-1 R-CLOSE-1: close while a permission request is pending: the turn settles, the agent is denied, nothing is left", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec() });
        h.onPermission = () => new Promise(() => {});
        const p = prompt(h, s.sessionId, "perm").then(
          (o) => o.stopReason,
          (e) => e.code,
        );
        for (let i = 0; i < 200 && h.permissionRequests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
        assert.equal(h.permissionRequests.length, 1);
        const groups = h.leftovers();
        assert.ok(((await h.request("session/close", { sessionId: s.sessionId })) as { processes?: unknown }).processes);
        assert.ok(["cancelled", "session_closed"].includes(await p));
        for (const g of groups) assert.deepEqual(groupAlive(g), []);
        const resolved = h.eventsOf(s.sessionId).find((e) => e.type === "permissionResolved");
        assert.equal(resolved?.outcome, "cancelled");
      }));

    it("permission_denials the CLI decided by itself surface as permissionResolved events", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec() });
        await prompt(h, s.sessionId, "selfdeny");
        const ev = h.eventsOf(s.sessionId).find((e) => e.type === "permissionResolved");
        assert.deepEqual(ev, { type: "permissionResolved", toolCallId: "toolu_03", outcome: "cancelled", decidedBy: "policy" });
      }));

    it("R-CANCEL-1: cancel sends interrupt, settles cancelled, ends the process group; the next prompt resumes", () =>
      withHost(async (h) => {
        const log = logFile();
        const s = await open(h, { spec: spec(), env: { FAKE_LOG: log } });
        const p = prompt(h, s.sessionId, "slow");
        await h.waitForEvent((e) => e.type === "messageChunk");
        const groups = h.leftovers();
        const t0 = Date.now();
        await h.request("session/cancel", { sessionId: s.sessionId });
        const out = await p;
        const ms = Date.now() - t0;
        assert.equal(out.stopReason, "cancelled");
        assert.ok(ms < 10_000, `settled in ${ms} ms`);
        for (const g of groups) assert.deepEqual(groupAlive(g), [], `group ${g} is gone`);
        const who = JSON.parse((await prompt(h, s.sessionId, "whoami")).text);
        assert.equal(who.sessionId, s.nativeSessionId);
        assert.equal(who.resumed, true);
        assert.ok(contains(argvs(log)[1], c.resumeArgs(s.nativeSessionId)));
      }));

    it("a CLI that ignores interrupt and SIGTERM is killed; the cancel settles within the grace", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec() });
        const p = prompt(h, s.sessionId, "stubborn");
        await h.waitForEvent((e) => e.type === "messageChunk");
        const t0 = Date.now();
        await h.request("session/cancel", { sessionId: s.sessionId });
        assert.equal((await p).stopReason, "cancelled");
        assert.ok(Date.now() - t0 < 10_000);
        assert.deepEqual(h.leftovers(), []);
      }));

    it("error: an API error result is agent_failed", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec() });
        const err = await prompt(h, s.sessionId, "error").catch((e) => e);
        assert.ok(err instanceof RpcFailure);
        assert.equal(err.code, "agent_failed");
        assert.match(err.error.data!.detail!, c.error);
        assert.equal((await prompt(h, s.sessionId, "text")).stopReason, "endTurn", "the session goes on");
      }));

    it("R-SUP-2: a crash mid-turn is agent_exited with the stderr tail; the session is then only closable", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec() });
        const err = await prompt(h, s.sessionId, "crash").catch((e) => e);
        assert.equal(err.code, "agent_exited");
        assert.match(err.error.data.detail, /FATAL: something broke/);
        assert.equal((await prompt(h, s.sessionId, "text").catch((e) => e)).code, "agent_exited");
      }));

    it("resume at open passes the resume flag with that id", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec(), resume: "0b7f5d3a-0000-4000-8000-000000000001" });
        assert.equal(s.nativeSessionId, "0b7f5d3a-0000-4000-8000-000000000001");
        const who = JSON.parse((await prompt(h, s.sessionId, "whoami")).text);
        assert.equal(who.resumed, true);
        assert.ok(contains(who.argv, c.resumeArgs(s.nativeSessionId)));
      }));

    it("R-OPEN-1: selectors are the CLI's flags; what it cannot honour is refused before spawning", () =>
      withHost(async (h) => {
        const log = logFile();
        await open(h, { spec: spec({ extraArgs: ["--extra"] }), options: c.selectors.options, env: { FAKE_LOG: log } });
        const [argv] = argvs(log);
        assert.ok(contains(argv, c.selectors.args), JSON.stringify(argv));
        assert.equal(argv[argv.length - 1], "--extra");
        for (const options of c.refused) {
          const err = await h.request("session/open", { spec: spec(), options }).catch((e) => e);
          assert.equal(err.code, "unsupported_selector", JSON.stringify(options));
        }
        assert.equal(h.groups.size, 1, "only the first session spawned");
        const s = await open(h, { spec: spec() });
        const err = await h.request("session/prompt", { sessionId: s.sessionId, text: "x", model: "other" }).catch((e) => e);
        assert.equal(err.code, "unsupported_selector");
        assert.equal(err.error.data.stage, "prompt");
      }));

    it("a CLI that exits during the handshake fails the open with spawn_failed and its stderr", () =>
      withHost(async (h) => {
        const err = await h.request("session/open", { spec: spec({ extraArgs: ["--bad-flag"] }) }).catch((e) => e);
        assert.equal(err.code, "spawn_failed");
        assert.match(err.error.data.detail, /unknown option '--bad-flag'/);
        assert.deepEqual(h.leftovers(), []);
      }));

    it("more than maxOutputBytes in a turn is output_limit; the next prompt starts a new process", () =>
      withHost(async (h) => {
        const s = await open(h, { spec: spec({ maxOutputBytes: 100_000 }) });
        const err = await prompt(h, s.sessionId, "big").catch((e) => e);
        assert.equal(err.code, "output_limit");
        assert.equal((await prompt(h, s.sessionId, "text")).text, "Hello from Claude.");
      }));
  });
}
