// R-OTEL-1/3 with a real ACP agent through `a4aa serve --otel-endpoint`: a tool turn whose
// permission the host allows, exported to a loopback OTLP receiver — the turn span (child of
// the host's traceparent), the tool span under it, the host's permission span, and no
// credential of the agent in any exported byte.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { INSTALL_HINT, agentsInstalled, type AgentName } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { attr, otlpReceiver } from "../../helpers/otlp-receiver.js";
import { TOOL_COMMAND, realAcpRig } from "./acp-suite.js";
import { teardownRealRig } from "./teardown.js";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const PARENT = "b7ad6b7169203331";

export function acpOtelSuite(agent: AgentName, provider: string): void {
  describe(`${agent} traced through a4aa serve`, { skip: agentsInstalled([agent]) ? false : INSTALL_HINT }, () => {
    test("R-OTEL-1, R-OTEL-3: invoke_agent ⊃ execute_tool and the host's permission span; no key in any byte", { timeout: 120_000 }, async () => {
      const otlp = await otlpReceiver();
      const r = await realAcpRig(
        agent,
        [reply.shell(TOOL_COMMAND), reply.text("Tool turn finished.")],
        (p) => {
          const allow = p.options.find((o: { kind: string }) => o.kind === "allowOnce");
          return allow ? { result: { selected: allow.optionId } } : { result: { cancelled: true } };
        },
        ["--otel-endpoint", otlp.url],
      );
      const keys = Object.entries((r.spec.command.env as { set?: Record<string, string> }).set ?? {})
        .filter(([k]) => /KEY|TOKEN/.test(k))
        .map(([, v]) => v);
      try {
        const sid = await r.s.open(r.spec, { cwd: r.run.cwd, options: { permission: "ask" } });
        const out = await r.s.ok("session/prompt", { sessionId: sid, text: "Run the command.", traceparent: `00-${TRACE}-${PARENT}-01` });
        assert.equal(out.stopReason, "endTurn");
        assert.equal(await r.s.end(), 0, "spans flushed at shutdown");
        const spans = otlp.spans();
        const names = spans.map((s) => s.name);
        const turn = spans.find((s) => s.name === `invoke_agent ${agent}`);
        assert.ok(turn, names.join(", "));
        assert.equal(turn.traceId, TRACE);
        assert.equal(turn.parentSpanId, PARENT);
        assert.equal(attr(turn, "gen_ai.provider.name"), provider);
        assert.equal(attr(turn, "a4aa.stop_reason"), "endTurn");
        const tools = spans.filter((s) => s.name.startsWith("execute_tool "));
        assert.ok(tools.length >= 1, names.join(", "));
        for (const t of tools) assert.equal(t.parentSpanId, turn.spanId);
        const wait = spans.find((s) => s.name.startsWith("permission "));
        assert.ok(wait, names.join(", "));
        assert.equal(attr(wait, "a4aa.permission.decided_by"), "host");
        const raw = otlp.raw();
        assert.ok(keys.length >= 1, "the agent has a key to leak");
        for (const k of keys) assert.ok(!raw.includes(k), "the agent's key is in no exported byte");
        console.log(`${agent} spans: ${names.join(", ")}`);
      } finally {
        await teardownRealRig(r);
        await otlp.close();
      }
    });
  });
}
