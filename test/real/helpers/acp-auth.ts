// Issue 14 "failing honestly": a real ACP agent through a4aa serve against a mock answering
// 401: the turn fails auth_required naming the variables the agent reads, and (no tool ran)
// uncertainEffect false. Used by test/real/<agent>/acp.auth.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor, type AgentName } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { TestSidecar, newMarker } from "../../helpers/sidecar.js";
import { teardownRealRig } from "./teardown.js";
import type { AgentSpec } from "../../../generated/ts/types.js";

export function acpAuthSuite(agent: AgentName, names: RegExp): void {
  test(`issue 14: ${agent} answered 401 by its model API fails the turn auth_required with the credential hint`, { skip: agentsInstalled([agent]) ? false : INSTALL_HINT, timeout: 120_000 }, async () => {
    const mock = await startMockFor(agent, [{ ...reply.error(401, "API key not valid. Please pass a valid API key."), sticky: true }]);
    const run = prepareAgent(agent, mock);
    const marker = newMarker();
    const command = run.command();
    const env = command.env as { policy: "sanitized"; inherit?: string[]; set?: Record<string, string> };
    const spec = { id: agent, lane: "acp", command: { ...command, env: { ...env, set: { ...(env.set ?? {}), A4AA_TEST_MARKER: marker } } } } as AgentSpec;
    const s = new TestSidecar();
    try {
      const sid = await s.open(spec, { cwd: run.cwd });
      const r = await s.call("session/prompt", { sessionId: sid, text: "Say hello." });
      console.log(`${agent} 401: ${JSON.stringify(r.error ?? r.result).slice(0, 1500)}`);
      const d = r.error?.data;
      assert.equal(d?.code, "auth_required", JSON.stringify(r).slice(0, 2000));
      assert.equal(d.uncertainEffect, false);
      assert.match(d.detail, /environment is only what its spec names/);
      assert.match(d.detail, names);
      await s.ok("session/close", { sessionId: sid });
    } finally {
      await teardownRealRig({ s, mock, run, marker });
    }
  });
}
