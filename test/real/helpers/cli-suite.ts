// The real CLIs (test/agents, pinned) driven through a real `a4aa serve` on the cli lane,
// each against a loopback mock of its model API that the test starts, with a scratch
// HOME per test (test/agents/agents.ts). One suite per driver: text, thinking, tools,
// usage, resume, cancel, error, selectors, and permission relay where the CLI can ask.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, it, type TestContext } from "node:test";
import { agentsInstalled, INSTALL_HINT, pinnedVersions, prepareAgent, startMockFor, type AgentName, type AgentRun } from "../../agents/agents.js";
import { reply, type ModelMock, type Reply } from "../../agents/mocks/common.js";
import { checkUsage } from "./usage.js";
import { type Host, open, RpcFailure, sharedHost, text } from "../../integration/cli/helpers/host.js";

export interface RealConfig {
  agent: AgentName;
  driver: string;
  npmPackage: string;
  /** Session options every session of the suite gets (e.g. the model, to skip a router). */
  options?: (run: AgentRun) => Record<string, unknown>;
  /** What lets the shell tool run (a preset, or nothing when the CLI runs it unasked). */
  toolOptions?: Record<string, unknown>;
  /** The CLI shows the model's thinking. */
  thoughts: boolean;
  /** The error code an API error (HTTP 400) becomes. */
  errorCode: string;
  /** The CLI can ask the host (claudeCode, qwen). */
  asks: boolean;
  /** A selector the driver refuses. */
  refused: Record<string, unknown>;
  /** The model selector's value (default: the configured model's name). */
  modelOption?: (run: AgentRun) => string;
  /** Checks that the model selector reached the API. */
  modelSeen: (mock: ModelMock, model: string) => boolean;
  /** The usage keys a plain turn reports (measured; R-USAGE-1). */
  usageKeys?: readonly string[];
}

interface Env {
  h: Host;
  mock: ModelMock;
  run: AgentRun;
  spec: Record<string, unknown>;
  options: Record<string, unknown>;
}

const TOOL_CMD = "echo a4aa-ok | tr a-z A-Z";
/** A real CLI turn takes seconds (tens on a loaded machine): bound each test and the suite. */
const TEST_TIMEOUT_MS = 240_000;
const SUITE_TIMEOUT_MS = 20 * 60_000;
const T = { timeout: TEST_TIMEOUT_MS };

const bodyText = (mock: ModelMock, i: number): string => JSON.stringify(mock.mainRequests()[i]?.body ?? null);

export const REAL_CASES = ["text", "thinking", "tool", "resume", "cancel", "error", "selectors", "permission"] as const;
export type RealCase = (typeof REAL_CASES)[number];

/** The cases a driver's suite must run (test/unit/real-suites.test.ts checks each has a file). */
export function casesFor(cfg: RealConfig): RealCase[] {
  return REAL_CASES.filter((c) => c !== "permission" || cfg.asks);
}

/**
 * One `describe` per driver and file. `only` picks the cases of this file: the test runner
 * bounds each file to 120 s, and a real CLI turn can take tens of seconds on a busy machine.
 * A picked case that does not apply to the driver is a failing test, never silently dropped.
 */
export function realSuite(cfg: RealConfig, only: readonly RealCase[] = REAL_CASES): void {
  const none = ((..._args: unknown[]) => undefined) as unknown as typeof it;
  const maybe = (key: RealCase) => (only.includes(key) ? it : none);
  for (const c of only.filter((c) => !casesFor(cfg).includes(c))) {
    it(`cli lane, ${cfg.driver} driver: case "${c}" was asked for but does not apply to this driver`, () => {
      assert.fail(`the ${cfg.driver} driver's config has no ${c} case (asks: ${cfg.asks}): remove the file or fix the config`);
    });
  }
  const installed = agentsInstalled([cfg.agent]);
  const version = installed ? pinnedVersions()[cfg.npmPackage] : "not installed";
  describe(`cli lane, ${cfg.driver} driver, real ${cfg.npmPackage}@${version}${only ? ` (${only.join(", ")})` : ""}`, { skip: installed ? false : INSTALL_HINT, timeout: SUITE_TIMEOUT_MS }, () => {
    // The real CLIs keep the real stop graces (no A4AA_TEST_GRACE_MS from the runner).
    const withHost = sharedHost();

    async function withAgent(script: Reply[], fn: (e: Env) => Promise<void>): Promise<void> {
      await withHost(async (h) => {
        const mock = await startMockFor(cfg.agent, script);
        const run = prepareAgent(cfg.agent, mock);
        try {
          const spec = { id: cfg.agent, lane: "cli", driver: cfg.driver, command: run.command() };
          await fn({ h, mock, run, spec, options: cfg.options?.(run) ?? {} });
        } finally {
          // Sessions are closed by the runner; the mock and the scratch HOME go here.
          for (const id of h.opened) await h.request("session/close", { sessionId: id }).catch(() => undefined);
          await mock.close();
          await run.cleanup();
        }
      });
    }

    const prompt = (h: Host, sessionId: string, t: string): Promise<any> => h.request("session/prompt", { sessionId, text: t });

    maybe("text")("text and usage", T, () =>
      withAgent([reply.text("Hello from the mock.")], async ({ h, spec, run, options }) => {
        const s = await open(h, { spec, cwd: run.cwd, options });
        const out = await prompt(h, s.sessionId, "Say hello.");
        assert.equal(out.stopReason, "endTurn");
        assert.equal(out.text, "Hello from the mock.");
        assert.equal(text(h.eventsOf(s.sessionId)), "Hello from the mock.");
        assert.ok(out.usage && out.usage.inputTokens > 0 && out.usage.outputTokens > 0, JSON.stringify(out.usage));
        checkUsage(`${cfg.driver} (cli)`, out.usage, cfg.usageKeys);
        assert.ok(h.eventsOf(s.sessionId).some((e) => e.type === "usage"));
        const native = s.nativeSessionId ?? h.eventsOf(s.sessionId).find((e) => e.type === "sessionInfo")?.nativeSessionId;
        assert.ok(native, "the CLI's session id is known");
      }));

    maybe("thinking")("thinking", T, () =>
      withAgent([reply.thinking("Pondering the request.", "Thought it over.")], async ({ h, spec, run, options }) => {
        const s = await open(h, { spec, cwd: run.cwd, options });
        const out = await prompt(h, s.sessionId, "Think first.");
        assert.equal(out.text, "Thought it over.");
        const thoughts = text(h.eventsOf(s.sessionId), "thoughtChunk");
        // A CLI that shows no thinking is checked for that too: should it start showing it, the config says so.
        if (cfg.thoughts) assert.match(thoughts, /Pondering/);
        else assert.equal(thoughts, "", `${cfg.driver} now shows the model's thinking: set thoughts: true in cli-configs.ts`);
      }));

    maybe("tool")("a shell tool call and its result", T, () =>
      withAgent(reply.shellTurn(TOOL_CMD, "Tool turn finished."), async ({ h, spec, run, options, mock }) => {
        h.onPermission = (p) => ({ selected: p.options.find((o: any) => o.kind === "allowOnce").optionId });
        const s = await open(h, { spec, cwd: run.cwd, options: { ...options, ...cfg.toolOptions } });
        const out = await prompt(h, s.sessionId, "Run the command.");
        assert.equal(out.stopReason, "endTurn");
        assert.equal(out.text, "Tool turn finished.");
        const ev = h.eventsOf(s.sessionId);
        const call = ev.find((e) => e.type === "toolCall");
        assert.ok(call, "a toolCall");
        assert.equal(call.kind, "execute");
        const done = ev.find((e) => e.type === "toolCallUpdate" && e.toolCallId === call.toolCallId && e.status === "completed");
        assert.ok(done, "its completed update, paired by id");
        assert.match(JSON.stringify(done.contentTexts ?? done.rawOutput), /A4AA-OK/);
        assert.match(bodyText(mock, 1), /A4AA-OK/, "the tool's output went back to the model");
      }));

    maybe("resume")("resume: the second turn and a session opened with resume carry the first turn's history", T, () =>
      withAgent([reply.text("First answer."), reply.text("Second answer."), reply.text("Third answer.")], async ({ h, spec, run, options, mock }) => {
        const s = await open(h, { spec, cwd: run.cwd, options });
        const first = await prompt(h, s.sessionId, "First question.");
        assert.equal(first.text, "First answer.");
        const second = await prompt(h, s.sessionId, "Second question.");
        assert.equal(second.text, "Second answer.");
        // TurnOutcome.usage is the turn's own, also where the CLI reports running totals
        // (Codex, Qwen Code; Claude Code's cost): a running total would about double.
        assert.ok(second.usage.inputTokens < first.usage.inputTokens * 1.5, `turn usage ${JSON.stringify([first.usage, second.usage])}`);
        if (first.usage.costUsd) assert.ok(second.usage.costUsd < first.usage.costUsd * 1.5, "the turn's own cost");
        assert.match(bodyText(mock, 1), /First answer\./, "the second request holds the first turn");
        const native = h.eventsOf(s.sessionId).filter((e) => e.type === "sessionInfo").pop()?.nativeSessionId ?? s.nativeSessionId;
        await h.request("session/close", { sessionId: s.sessionId });
        const r = await open(h, { spec, cwd: run.cwd, options, resume: native });
        assert.equal((await prompt(h, r.sessionId, "Third question.")).text, "Third answer.");
        assert.match(bodyText(mock, 2), /Second answer\./, "the resumed session holds the history");
      }));

    maybe("cancel")("R-CANCEL-1: a cancel during a slow stream settles cancelled within the grace; the process group is gone", T, (t: TestContext) =>
      withAgent([reply.slow(Array.from({ length: 60 }, (_, i) => `chunk${i} `), 250)], async ({ h, spec, run, options, mock }) => {
        const s = await open(h, { spec, cwd: run.cwd, options });
        const p = prompt(h, s.sessionId, "Go slowly.");
        // The slow reply is streaming once the mock has taken the main request (waitFor
        // would wait for its end).
        const deadline = Date.now() + 60_000;
        while (!mock.requests.some((r) => r.role === "main") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        await new Promise((r) => setTimeout(r, 1000));
        const ms = await h.cancelRunningTurn(s.sessionId, p);
        t.diagnostic(`${cfg.driver}: cancel settled in ${ms} ms`);
      }));

    maybe("error")("an API error fails the turn", T, () =>
      withAgent([{ ...reply.error(400, "Mock invalid request"), sticky: true }], async ({ h, spec, run, options }) => {
        const s = await open(h, { spec, cwd: run.cwd, options });
        const err = await prompt(h, s.sessionId, "Fail please.").catch((e) => e);
        assert.ok(err instanceof RpcFailure, `an error, not ${JSON.stringify(err)}`);
        assert.equal(err.code, cfg.errorCode, err.message);
        assert.match(err.error.data!.detail ?? "", /Mock invalid request|400/);
      }));

    maybe("selectors")("R-OPEN-1: the model selector reaches the API; a selector the CLI has no flag for is refused before spawning", T, () =>
      withAgent([reply.text("ok")], async ({ h, spec, run, options, mock }) => {
        const err = await h.request("session/open", { spec, cwd: run.cwd, options: cfg.refused }).catch((e) => e);
        assert.equal(err.code, "unsupported_selector");
        assert.equal(h.groups.size, 0);
        const s = await open(h, { spec, cwd: run.cwd, options: { ...options, model: cfg.modelOption?.(run) ?? run.model } });
        await prompt(h, s.sessionId, "Hi.");
        assert.ok(cfg.modelSeen(mock, run.model), `the API saw model ${run.model}`);
      }));

    if (casesFor(cfg).includes("permission")) {
      maybe("permission")("R-PERM-1: a permission request is relayed to the host: once allowed, once denied", T, () =>
        withAgent(
          [reply.shell("touch allowed.txt"), reply.text("Made it."), reply.shell("touch denied.txt"), reply.text("Was refused.")],
          async ({ h, spec, run, options }) => {
            const s = await open(h, { spec, cwd: run.cwd, options });
            h.onPermission = () => ({ selected: "allow" });
            assert.equal((await prompt(h, s.sessionId, "Make a file.")).text, "Made it.");
            assert.ok(existsSync(path.join(run.cwd, "allowed.txt")), "the allowed command ran");
            h.onPermission = () => ({ selected: "deny" });
            assert.equal((await prompt(h, s.sessionId, "Make another.")).text, "Was refused.");
            assert.ok(!existsSync(path.join(run.cwd, "denied.txt")), "the denied command did not run");
            assert.equal(h.permissionRequests.length, 2);
            const req = h.permissionRequests[0];
            assert.equal(req.kind, "execute");
            assert.deepEqual(
              req.options.map((o: any) => o.optionId),
              ["allow", "allowAlways", "deny"],
            );
            const resolved = h.eventsOf(s.sessionId).filter((e) => e.type === "permissionResolved");
            assert.deepEqual(
              resolved.map((e) => [e.optionId, e.decidedBy]),
              [
                ["allow", "host"],
                ["deny", "host"],
              ],
            );
          },
        ));
    }
  });
}
