// Real ACP agents (gemini --acp, claude-agent-acp, codex-acp) driven through a real
// `a4aa serve`, each against a loopback mock of its model API: a prompt answered, a shell
// tool call whose permission request is relayed to the host and allowed, and a cancel.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor, type AgentName, type AgentRun } from "../../agents/agents.js";
import { reply, textOf, type ModelMock, type Reply, type Script } from "../../agents/mocks/common.js";
import { teardownRealRig } from "./teardown.js";
import { checkUsage } from "./usage.js";
import { TestSidecar, newMarker, processesWithMarker } from "../../helpers/sidecar.js";
import { parentPid } from "../../helpers/procs.js";
import type { AgentSpec } from "../../../generated/ts/types.js";

// Writes a file, so that every agent's default (or chosen) mode asks before running it.
export const TOOL_COMMAND = "echo a4aa-ok | tr a-z A-Z > result.txt && cat result.txt";
const TOOL_OUTPUT = "A4AA-OK";
const TIMEOUT = 110_000;

export interface Rig {
  s: TestSidecar;
  mock: ModelMock;
  run: AgentRun;
  marker: string;
  spec: AgentSpec;
}

/** A real ACP agent against its mock, a spec that runs it (tagged with the test's marker), and a sidecar; end it with teardownRealRig. */
export async function realAcpRig(
  agent: AgentName,
  script: Reply[] | Script,
  onPermission?: ConstructorParameters<typeof TestSidecar>[0] extends infer O ? (O extends { onPermission?: infer P } ? P : never) : never,
  extraArgs: string[] = [],
): Promise<Rig> {
  const mock = await startMockFor(agent, script);
  const run = prepareAgent(agent, mock);
  const marker = newMarker();
  const command = run.command();
  const env = command.env as { policy: "sanitized"; inherit?: string[]; set?: Record<string, string> };
  const spec: AgentSpec = {
    id: agent,
    lane: "acp",
    command: { ...command, env: { ...env, set: { ...(env.set ?? {}), A4AA_TEST_MARKER: marker } } },
  } as AgentSpec;
  const s = new TestSidecar({ onPermission, args: ["--cancel-grace", "5000", ...extraArgs] });
  return { s, mock, run, marker, spec };
}

const teardown = (r: Rig): Promise<void> => teardownRealRig(r);

export interface SuiteOptions {
  /** The agent's mode in which a shell command that writes needs the user's approval. */
  askingMode?: string;
  /** How the mock model calls the shell (default: the agent's plain shell tool). */
  toolCall?: (command: string) => Reply;
  /** The usage keys a plain turn reports (measured; R-USAGE-1). */
  usageKeys?: readonly string[];
}

export function realAcpSuite(agent: AgentName, opts: SuiteOptions = {}): void {
  describe(`${agent} through a4aa serve`, { skip: agentsInstalled([agent]) ? false : INSTALL_HINT }, () => {
    test("a prompt is answered with the model's text, streamed as events", { timeout: TIMEOUT }, async () => {
      const r = await realAcpRig(agent, [reply.text("Hello from the mock model.")]);
      try {
        const open = await r.s.ok("session/open", { spec: r.spec, cwd: r.run.cwd });
        assert.equal(open.capabilities.lane, "acp");
        assert.equal(typeof open.nativeSessionId, "string");
        const out = await r.s.ok("session/prompt", { sessionId: open.sessionId, text: "Say hello." });
        assert.equal(out.stopReason, "endTurn");
        assert.match(out.text, /Hello from the mock model\./);
        checkUsage(`${agent} (acp)`, out.usage, opts.usageKeys);
        assert.ok(r.s.events(open.sessionId).some((e) => e.type === "messageChunk"));
        await r.s.ok("session/close", { sessionId: open.sessionId });
      } finally {
        await teardown(r);
      }
    });

    test("R-PERM-1: a shell tool call asks the host through permission/request; allowed once, it runs", { timeout: TIMEOUT }, async () => {
      const asked: any[] = [];
      const call = opts.toolCall ? opts.toolCall(TOOL_COMMAND) : reply.shell(TOOL_COMMAND);
      const r = await realAcpRig(agent, [call, reply.text("Tool turn finished.")], (p) => {
        asked.push(p);
        const allow = p.options.find((o: { kind: string }) => o.kind === "allowOnce");
        return allow ? { result: { selected: allow.optionId } } : { result: { cancelled: true } };
      });
      try {
        const sid = await r.s.open(r.spec, { cwd: r.run.cwd, options: { permission: "ask", ...(opts.askingMode ? { mode: opts.askingMode } : {}) } });
        const out = await r.s.ok("session/prompt", { sessionId: sid, text: "Run the command." });
        assert.equal(out.stopReason, "endTurn");
        assert.match(out.text, /Tool turn finished\./);
        assert.ok(asked.length >= 1, "the agent's permission request reached the host");
        assert.equal(asked[0].sessionId, sid);
        assert.ok(asked[0].options.some((o: { kind: string }) => o.kind === "allowOnce"));
        const evs = r.s.events(sid);
        assert.ok(evs.some((e) => e.type === "permissionResolved" && e.decidedBy === "host" && e.outcome === "selected"));
        assert.ok(evs.some((e) => e.type === "toolCall" || e.type === "toolCallUpdate"));
        // Issue 21 (one event story): the host saw the tool call before it is asked about it.
        const wire = r.s.received as any[];
        const askAt = wire.findIndex((m) => m.method === "permission/request" && m.params.sessionId === sid);
        const toolAt = wire.findIndex(
          (m) => m.method === "session/event" && m.params.sessionId === sid && m.params.event.type === "toolCall" && m.params.event.toolCallId === asked[0].toolCallId,
        );
        assert.ok(toolAt >= 0 && toolAt < askAt, `toolCall ${asked[0].toolCallId} is announced (message ${toolAt}) before its permission request (message ${askAt})`);
        const main = r.mock.mainRequests();
        assert.ok(main.length >= 2 && JSON.stringify(main[main.length - 1].body).includes(TOOL_OUTPUT), "the tool ran and its output went back to the model");
      } finally {
        await teardown(r);
      }
    });

    test("R-CANCEL-1: a slow stream is cancelled: the prompt settles cancelled and the agent stays usable", { timeout: TIMEOUT }, async () => {
      const chunks = Array.from({ length: 200 }, (_, i) => `part ${i} `);
      const r = await realAcpRig(agent, [reply.slow(chunks, 100), reply.text("After the cancel.")]);
      try {
        const sid = await r.s.open(r.spec, { cwd: r.run.cwd });
        const p = r.s.call("session/prompt", { sessionId: sid, text: "Talk slowly." });
        await r.s.waitFor(() => r.s.events(sid).some((e) => e.type === "messageChunk"), 60_000, "the first streamed chunk");
        const t0 = Date.now();
        assert.deepEqual(await r.s.ok("session/cancel", { sessionId: sid }), {});
        const res = await p;
        assert.equal(res.result?.stopReason, "cancelled", JSON.stringify(res));
        assert.ok(Date.now() - t0 < 5500, "settled within the grace period");
        const again = await r.s.ok("session/prompt", { sessionId: sid, text: "Still there?" });
        assert.match(again.text, /After the cancel\./);
      } finally {
        await teardown(r);
      }
    });
  });
}

/**
 * §13: two sessions with `share` on one process of the real agent, prompted at once, each
 * answered by the mock according to its own prompt: each gets its own answer only.
 */
export function realAcpShareTest(agent: AgentName): void {
  describe(`${agent} on a shared process`, { skip: agentsInstalled([agent]) ? false : INSTALL_HINT }, () => {
    test("R-SHARE-1: two sessions on one shared process each get their own answer", { timeout: TIMEOUT }, async () => {
      // The mock answers by the code word in the conversation it is sent.
      const script: Script = (req) => {
        const body = textOf(req.body);
        if (body.includes("ALPHA-7")) return reply.slow(["Answer ", "for ", "alpha."], 150);
        if (body.includes("BRAVO-3")) return reply.slow(["Answer ", "for ", "bravo."], 150);
        return undefined;
      };
      const r = await realAcpRig(agent, script);
      try {
        const spec = { ...r.spec, share: { maxSessions: 4, idleMs: 1000 } } as AgentSpec;
        const t0 = Date.now();
        const a = await r.s.ok("session/open", { spec, cwd: r.run.cwd });
        const cold = Date.now() - t0;
        // The agent processes the sidecar started itself (an agent may start helpers per session).
        const agents = () => processesWithMarker(r.marker).filter((pid) => parentPid(pid) === r.s.proc.pid);
        const afterFirst = agents();
        const t1 = Date.now();
        const b = await r.s.ok("session/open", { spec, cwd: r.run.cwd });
        const warm = Date.now() - t1;
        assert.equal(a.shared, true);
        assert.equal(b.shared, true);
        assert.notEqual(a.nativeSessionId, b.nativeSessionId, "two agent sessions");
        assert.deepEqual(agents(), afterFirst, "the second open started another agent process");
        assert.equal(afterFirst.length, 1);
        const [ra, rb] = await Promise.all([
          r.s.ok("session/prompt", { sessionId: a.sessionId, text: "Code word ALPHA-7: answer." }),
          r.s.ok("session/prompt", { sessionId: b.sessionId, text: "Code word BRAVO-3: answer." }),
        ]);
        assert.match(ra.text, /Answer for alpha\./);
        assert.doesNotMatch(ra.text, /bravo/);
        assert.match(rb.text, /Answer for bravo\./);
        assert.doesNotMatch(rb.text, /alpha/);
        const chunks = (sid: string) => r.s.events(sid).filter((e) => e.type === "messageChunk").map((e) => (e as { text: string }).text).join("");
        assert.doesNotMatch(chunks(a.sessionId), /bravo/);
        assert.doesNotMatch(chunks(b.sessionId), /alpha/);
        process.stderr.write(`${agent} share: cold open ${cold} ms, warm open ${warm} ms; agent process ${afterFirst[0]} for both sessions\n`);
        assert.ok(warm < cold, `the second open (${warm} ms) paid a process start like the first (${cold} ms)`);
        await r.s.ok("session/close", { sessionId: a.sessionId });
        const again = await r.s.ok("session/prompt", { sessionId: b.sessionId, text: "Code word BRAVO-3 again." });
        assert.match(again.text, /Answer for bravo\./, "the other session goes on after one closed");
        await r.s.ok("session/close", { sessionId: b.sessionId });
      } finally {
        await teardown(r);
      }
    });
  });
}
