// Real ACP agents (gemini --acp, claude-agent-acp, codex-acp) driven through a real
// `a4aa serve`, each against a loopback mock of its model API: a prompt answered, a shell
// tool call whose permission request is relayed to the host and allowed, and a cancel.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor, type AgentName, type AgentRun } from "../../agents/agents.js";
import { reply, type ModelMock, type Reply } from "../../agents/mocks/common.js";
import { teardownRealRig } from "./teardown.js";
import { TestSidecar, newMarker, waitNoProcesses, killMarked } from "../../helpers/sidecar.js";
import type { AgentSpec } from "../../../generated/ts/types.js";

// Writes a file, so that every agent's default (or chosen) mode asks before running it.
const TOOL_COMMAND = "echo a4aa-ok | tr a-z A-Z > result.txt && cat result.txt";
const TOOL_OUTPUT = "A4AA-OK";
const TIMEOUT = 110_000;

interface Rig {
  s: TestSidecar;
  mock: ModelMock;
  run: AgentRun;
  marker: string;
  spec: AgentSpec;
}

async function rig(agent: AgentName, script: Reply[], onPermission?: ConstructorParameters<typeof TestSidecar>[0] extends infer O ? (O extends { onPermission?: infer P } ? P : never) : never): Promise<Rig> {
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
  const s = new TestSidecar({ onPermission, args: ["--cancel-grace", "5000"] });
  return { s, mock, run, marker, spec };
}

const teardown = (r: Rig): Promise<void> => teardownRealRig(r);

export interface SuiteOptions {
  /** The agent's mode in which a shell command that writes needs the user's approval. */
  askingMode?: string;
  /** How the mock model calls the shell (default: the agent's plain shell tool). */
  toolCall?: (command: string) => Reply;
}

export function realAcpSuite(agent: AgentName, opts: SuiteOptions = {}): void {
  describe(`${agent} through a4aa serve`, { skip: agentsInstalled([agent]) ? false : INSTALL_HINT }, () => {
    test("a prompt is answered with the model's text, streamed as events", { timeout: TIMEOUT }, async () => {
      const r = await rig(agent, [reply.text("Hello from the mock model.")]);
      try {
        const open = await r.s.ok("session/open", { spec: r.spec, cwd: r.run.cwd });
        assert.equal(open.capabilities.lane, "acp");
        assert.equal(typeof open.nativeSessionId, "string");
        const out = await r.s.ok("session/prompt", { sessionId: open.sessionId, text: "Say hello." });
        assert.equal(out.stopReason, "endTurn");
        assert.match(out.text, /Hello from the mock model\./);
        assert.ok(r.s.events(open.sessionId).some((e) => e.type === "messageChunk"));
        await r.s.ok("session/close", { sessionId: open.sessionId });
      } finally {
        await teardown(r);
      }
    });

    test("R-PERM-1: a shell tool call asks the host through permission/request; allowed once, it runs", { timeout: TIMEOUT }, async () => {
      const asked: any[] = [];
      const call = opts.toolCall ? opts.toolCall(TOOL_COMMAND) : reply.shell(TOOL_COMMAND);
      const r = await rig(agent, [call, reply.text("Tool turn finished.")], (p) => {
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
      const r = await rig(agent, [reply.slow(chunks, 100), reply.text("After the cancel.")]);
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
