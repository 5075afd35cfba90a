// Gemini CLI's headless mode (a4aa's cli lane) with its folder trust on (a fresh install's
// default) in a folder it does not trust exits 55 before asking the model. The host sees
// agent_failed with the fix in a4aa's terms (not agent_exited and "check its install"), and
// the fix works: GEMINI_CLI_TRUST_WORKSPACE=true in session/open's env.
import assert from "node:assert/strict";
import { test } from "node:test";
import { INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { TestSidecar, killMarked, newMarker, waitNoProcesses } from "../../helpers/sidecar.js";
import type { AgentSpec } from "../../../generated/ts/types.js";

test(
  "gemini cli lane in an untrusted folder: agent_failed naming GEMINI_CLI_TRUST_WORKSPACE=true, the model never asked; with it the turn works",
  { skip: agentsInstalled(["gemini"]) ? false : INSTALL_HINT, timeout: 180_000 },
  async () => {
    const mock = await startMockFor("gemini", [reply.text("Trusted now.")]);
    const run = prepareAgent("gemini", mock, { folderTrust: true });
    const marker = newMarker();
    const command = run.command();
    const env = command.env as { policy: "sanitized"; set?: Record<string, string> };
    const spec = { id: "gemini", lane: "cli", driver: "gemini", command: { ...command, env: { ...env, set: { ...env.set, A4AA_TEST_MARKER: marker } } } } as AgentSpec;
    const s = new TestSidecar();
    try {
      const first = await s.open(spec, { cwd: run.cwd, options: { model: run.model } });
      const r = await s.call("session/prompt", { sessionId: first, text: "hello" });
      const d = r.error?.data;
      assert.equal(d?.code, "agent_failed", JSON.stringify(r).slice(0, 2000));
      assert.equal(d.uncertainEffect, false);
      assert.match(d.detail, /does not trust/);
      assert.match(d.detail, /GEMINI_CLI_TRUST_WORKSPACE=true/);
      assert.match(d.detail, /--env GEMINI_CLI_TRUST_WORKSPACE=true/, "a4aa run's flag");
      assert.equal(mock.requests.filter((q) => q.role === "main").length, 0, "the model was never asked");
      await s.call("session/close", { sessionId: first });

      const second = await s.open(spec, { cwd: run.cwd, options: { model: run.model }, env: { GEMINI_CLI_TRUST_WORKSPACE: "true" } });
      const ok = await s.call("session/prompt", { sessionId: second, text: "hello" });
      assert.equal((ok.result as { stopReason?: string })?.stopReason, "endTurn", JSON.stringify(ok).slice(0, 2000));
      assert.equal(await s.end(), 0);
      assert.deepEqual(await waitNoProcesses(marker, 10_000), []);
    } finally {
      s.kill();
      killMarked(marker);
      await mock.close();
      await run.cleanup();
    }
  },
);
