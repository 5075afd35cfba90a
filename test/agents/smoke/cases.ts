// Smoke cases for the real agents, run directly (no a4aa) against their loopback mocks: one
// headless turn per case for the per-turn CLIs, and initialize + session/new +
// session/prompt for the ACP agents. One test file per agent and case
// (smoke/<agent>.<case>.test.ts) because scripts/run-tests.mjs bounds each file to 120 s and
// some CLIs (opencode, qwen) take 10-40 s per turn on a busy 2-core machine.
//
// Default cases: text and tool. A4AA_AGENTS_FULL=1 also runs thinking and error (skipped
// otherwise). A4AA_SAVE_TRANSCRIPTS=1 writes each case's stdout (or, for ACP, the JSON-RPC
// wire) to test/agents/transcripts/<agent>-<case>.jsonl.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import {
  AGENTS_DIR,
  INSTALL_HINT,
  agentsInstalled,
  isNetworkIsolated,
  prepareAgent,
  startMockFor,
  type AgentName,
  type AgentRun,
} from "../agents.js";
import { AcpStdioClient, agentText, runHeadless, type HeadlessResult } from "../harness.js";
import { reply, type ModelMock, type Reply } from "../mocks/common.js";

const SAVE = process.env.A4AA_SAVE_TRANSCRIPTS === "1";
const FULL = process.env.A4AA_AGENTS_FULL === "1";
const TRANSCRIPTS = path.join(AGENTS_DIR, "transcripts");
/** One agent process at most this long. */
const TURN_TIMEOUT_MS = 75_000;
const TEST_TIMEOUT_MS = 100_000;

export const TOOL_COMMAND = "echo a4aa-ok | tr a-z A-Z";
/** The ACP tool case writes a file, so that adapters that skip asking for read-only commands ask. */
export const ACP_TOOL_FILE = "a4aa-made-this";
export const ACP_TOOL_COMMAND = `touch ${ACP_TOOL_FILE} && ${TOOL_COMMAND}`;
/** Appears only in the command's output, never in the command itself. */
export const TOOL_OUTPUT = "A4AA-OK";

export interface SmokeCase {
  script: Reply[];
  prompt: string;
  tools?: boolean;
  /** Text the agent's answer must contain. */
  expect?: string;
  /** The case expects a failed turn. */
  error?: boolean;
}

export const CASES: Record<"text" | "tool" | "thinking" | "error", SmokeCase> = {
  text: { script: [reply.text("Hello from the mock.")], prompt: "Say hello.", expect: "Hello from the mock." },
  tool: {
    script: [reply.shell(TOOL_COMMAND), reply.text("Tool turn finished.")],
    prompt: "Run the command.",
    tools: true,
    expect: "Tool turn finished.",
  },
  thinking: { script: [reply.thinking("Thinking it over.", "Thought done.")], prompt: "Think.", expect: "Thought done." },
  // Sticky: claude-agent-acp retries a 400 (six requests in all) before giving up.
  error: { script: [{ ...reply.error(400, "Mock invalid request"), sticky: true }], prompt: "Fail please.", error: true },
};

export type CaseName = keyof typeof CASES;

/** Why a case is skipped, or false to run it. */
function skipReason(kase: CaseName): string | false {
  return FULL || kase === "text" || kase === "tool" ? false : "extended case: set A4AA_AGENTS_FULL=1";
}

function save(agent: AgentName, kase: string, lines: string[]): void {
  if (!SAVE) return;
  fs.mkdirSync(TRANSCRIPTS, { recursive: true });
  fs.writeFileSync(path.join(TRANSCRIPTS, `${agent}-${kase}.jsonl`), lines.filter((l) => l.trim()).join("\n") + "\n");
}

function describeRun(r: HeadlessResult): string {
  return `exit ${r.code} signal ${r.signal} after ${r.ms} ms${r.timedOut ? " (timed out)" : ""}\n--- stdout (tail)\n${r.stdout.slice(-3000)}\n--- stderr (tail)\n${r.stderr.slice(-3000)}`;
}

async function withAgent<T>(name: AgentName, script: Reply[], f: (run: AgentRun, mock: ModelMock) => Promise<T>): Promise<T> {
  assert.ok(agentsInstalled([name]), INSTALL_HINT);
  const mock = await startMockFor(name, { script });
  const run = prepareAgent(name, mock);
  try {
    return await f(run, mock);
  } finally {
    await mock.close();
    await run.cleanup();
  }
}

/** The tool's output reached the model in the follow-up request. */
function assertToolResultSent(mock: ModelMock, detail = ""): void {
  const main = mock.mainRequests();
  assert.ok(main.length >= 2, `expected a follow-up request after the tool call, got ${main.length}\n${detail}`);
  assert.ok(JSON.stringify(main[1].body).includes(TOOL_OUTPUT), "the follow-up request carries the tool's output");
}

function isolationNote(t: { diagnostic(s: string): void }): void {
  if (!isNetworkIsolated())
    t.diagnostic("not network-isolated: relying on env/config to stay on loopback (test/agents/offline.sh isolates)");
}

/** Registers one headless smoke test of a per-turn CLI. */
export function headlessCase(agent: AgentName, kase: CaseName): void {
  const c = CASES[kase];
  test(`${agent} headless against its mock: ${kase}`, { timeout: TEST_TIMEOUT_MS, skip: skipReason(kase) }, async (t) => {
    isolationNote(t);
    await withAgent(agent, c.script, async (run, mock) => {
      const r = await runHeadless(run, run.headlessArgs(c.prompt, { tools: c.tools, thinking: kase === "thinking" }), {
        timeoutMs: TURN_TIMEOUT_MS,
      });
      save(agent, kase, r.stdout.split("\n"));
      t.diagnostic(
        `exit ${r.code} in ${r.ms} ms, ${r.events.length} JSON events, ${mock.requests.length} requests (${mock.mainRequests().length} main)`,
      );
      assert.ok(!r.timedOut, `timed out\n${describeRun(r)}`);
      assert.ok(mock.mainRequests().length >= 1, `the mock got no main request\n${describeRun(r)}`);
      if (c.error) {
        // Each CLI reports an API error its own way (see README); all end the turn.
        assert.ok(r.code !== 0 || /error/i.test(r.stdout), `no error reported\n${describeRun(r)}`);
        return;
      }
      assert.equal(r.code, 0, describeRun(r));
      const text = agentText(agent, r.events);
      assert.ok(
        text.includes(c.expect!),
        `expected ${JSON.stringify(c.expect)} in the answer, got ${JSON.stringify(text)}\n${describeRun(r)}`,
      );
      if (kase === "tool") assertToolResultSent(mock, describeRun(r));
      else assert.equal(mock.mainRequests().length, c.script.length, `unexpected extra main requests\n${describeRun(r)}`);
    });
  });
}

/** Registers one ACP smoke test of an ACP agent. */
export function acpCase(agent: AgentName, kase: CaseName): void {
  const c: SmokeCase =
    kase === "tool" ? { ...CASES.tool, script: [reply.shell(ACP_TOOL_COMMAND), reply.text("Tool turn finished.")] } : CASES[kase];
  test(`${agent} over ACP against its mock: ${kase}`, { timeout: TEST_TIMEOUT_MS, skip: skipReason(kase) }, async (t) => {
    isolationNote(t);
    await withAgent(agent, c.script, async (run, mock) => {
      const client = new AcpStdioClient(run);
      const t0 = Date.now();
      try {
        const init = await client.request("initialize", {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "a4aa-smoke", version: "0.0.0" },
        });
        assert.equal(init.protocolVersion, 1);
        const session = await client.request("session/new", { cwd: run.cwd, mcpServers: [] });
        assert.equal(typeof session.sessionId, "string");
        const prompt = client.request(
          "session/prompt",
          { sessionId: session.sessionId, prompt: [{ type: "text", text: c.prompt }] },
          TURN_TIMEOUT_MS,
        );
        if (c.error) {
          // Each adapter reports an API error its own way (see README); all settle the prompt.
          const settled = await prompt.then(
            (r) => `result ${JSON.stringify(r).slice(0, 300)}`,
            (e: any) => `JSON-RPC error ${JSON.stringify(e.rpc ?? String(e)).slice(0, 300)}`,
          );
          t.diagnostic(`error case settled after ${Date.now() - t0} ms: ${settled}`);
          assert.ok(mock.mainRequests().length >= 1, "the mock got the request");
          return;
        }
        const result = await prompt;
        t.diagnostic(`stopReason ${result.stopReason} after ${Date.now() - t0} ms, ${client.updates.length} updates`);
        assert.equal(result.stopReason, "end_turn");
        const text = client.messageText(session.sessionId);
        assert.ok(text.includes(c.expect!), `expected ${JSON.stringify(c.expect)}, got ${JSON.stringify(text)}`);
        if (kase === "tool") {
          assertToolResultSent(mock);
          assert.ok(fs.existsSync(path.join(run.cwd, ACP_TOOL_FILE)), "the command ran in the session's cwd");
          const asked = client.wire.some((w) => w.dir === "recv" && w.msg.method === "session/request_permission");
          t.diagnostic(`permission asked: ${asked}`);
          // gemini --acp (0.61) sends no `tool_call` before asking permission: only a
          // `tool_call_update` for the id named in session/request_permission.
          assert.ok(
            client.updates.some((u) => u.update?.sessionUpdate === "tool_call" || u.update?.sessionUpdate === "tool_call_update"),
            "a tool_call / tool_call_update was sent",
          );
        }
      } catch (err) {
        throw new Error(`${String(err)}\n--- stderr (tail)\n${client.stderr.slice(-3000)}`);
      } finally {
        await client.close();
        save(
          agent,
          kase,
          client.wire.map((w) => JSON.stringify(w)),
        );
      }
    });
  });
}
