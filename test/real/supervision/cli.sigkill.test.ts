// R-SUP-4 with the real CLIs: `kill -9` of `a4aa serve` while a real `codex exec` and a real
// `claude -p` turn stream from their (loopback mock) model: the sidecar's guard ends both
// process trees within 5 s instead of leaving them to stream on, reparented to init.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { agentsInstalled, INSTALL_HINT, prepareAgent, startMockFor } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { TestSidecar, killMarked, newMarker, processesWithMarker, waitNoProcesses } from "../../helpers/sidecar.js";
import { CONFIGS } from "../helpers/cli-configs.js";

const CASES = [CONFIGS.codex, CONFIGS.claudeCode];

describe("R-SUP-4: real CLI turns do not outlive a SIGKILLed sidecar", { skip: agentsInstalled(CASES.map((c) => c.agent)) ? false : INSTALL_HINT, timeout: 110_000 }, () => {
  it("R-SUP-4: kill -9 of the sidecar mid-turn (codex exec, claude -p): every process of both turns is gone within 5 s", async (t: TestContext) => {
    const marker = newMarker();
    const s = new TestSidecar();
    const runs: { close: () => Promise<void> }[] = [];
    try {
      const sids: string[] = [];
      for (const cfg of CASES) {
        const mock = await startMockFor(cfg.agent, [reply.slow(Array.from({ length: 200 }, (_, i) => `chunk${i} `), 250)]);
        const run = prepareAgent(cfg.agent, mock);
        runs.push({ close: async () => (await mock.close(), await run.cleanup()) });
        const command = run.command();
        command.env.set = { ...command.env.set, A4AA_TEST_MARKER: marker };
        const spec = { id: cfg.agent, lane: "cli", driver: cfg.driver, command };
        const sid = (await s.ok<{ sessionId: string }>("session/open", { spec, cwd: run.cwd, options: cfg.options?.(run) ?? {} })).sessionId;
        void s.call("session/prompt", { sessionId: sid, text: "Go slowly." }).catch(() => undefined);
        const deadline = Date.now() + 60_000;
        while (!mock.requests.some((r) => r.role === "main") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.ok(mock.requests.some((r) => r.role === "main"), `${cfg.driver}: the turn reached the model`);
        sids.push(sid);
      }
      await new Promise((r) => setTimeout(r, 1000));
      const before = processesWithMarker(marker);
      assert.ok(before.length >= 2, `both CLIs run: ${before.length} processes`);
      const t0 = Date.now();
      s.proc.kill("SIGKILL");
      const left = await waitNoProcesses(marker, 5000);
      t.diagnostic(`${before.length} processes of 2 real CLI turns gone ${Date.now() - t0} ms after the sidecar's SIGKILL`);
      assert.deepEqual(left, [], `still alive ${Date.now() - t0} ms after the SIGKILL`);
    } finally {
      s.kill();
      killMarked(marker);
      for (const r of runs) await r.close().catch(() => undefined);
    }
  });
});
