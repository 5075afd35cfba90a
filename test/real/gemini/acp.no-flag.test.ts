// Issue 14 "no open hangs", the real case: `gemini` started on the acp lane without `--acp`
// takes the ACP initialize line as a user prompt (200 s observed, unbounded before the
// handshake deadline). The real CLI against its loopback mock, with a short spec deadline.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { INSTALL_HINT, agentBin, agentsInstalled, prepareAgent, startMockFor } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { TestSidecar, killMarked, newMarker, waitNoProcesses } from "../../helpers/sidecar.js";
import type { AgentSpec } from "../../../generated/ts/types.js";

const DEADLINE_MS = 8_000;

test(
  "issue 14 handshake deadline: gemini without --acp fails session/open initialize_failed within the spec's deadline, says what it printed, and is stopped",
  { skip: agentsInstalled(["gemini"]) ? false : INSTALL_HINT, timeout: 90_000 },
  async () => {
    const mock = await startMockFor("gemini", [reply.text("I am answering your JSON as a prompt.")]);
    const run = prepareAgent("gemini", mock);
    const marker = newMarker();
    const command = run.command(["-m", run.model]);
    const env = command.env as { policy: "sanitized"; inherit?: string[]; set?: Record<string, string> };
    const spec = {
      id: "gemini-without-acp",
      lane: "acp",
      handshakeTimeoutMs: DEADLINE_MS,
      command: { ...command, env: { ...env, set: { ...(env.set ?? {}), A4AA_TEST_MARKER: marker } } },
    } as AgentSpec;
    const s = new TestSidecar();
    try {
      const t0 = Date.now();
      const r = await s.call("session/open", { spec, cwd: run.cwd });
      const took = Date.now() - t0;
      const d = r.error?.data;
      assert.equal(d?.code, "initialize_failed", JSON.stringify(r).slice(0, 2000));
      assert.equal(d.retryable, true);
      // It took our initialize line for a prompt and may have sent it to the model.
      assert.equal(d.uncertainEffect, true);
      assert.ok(took < DEADLINE_MS + 5000, `answered within the deadline plus the stop (${took} ms)`);
      assert.match(d.detail, new RegExp(`within ${DEADLINE_MS} ms \\(no answer to initialize\\)`));
      assert.match(d.detail, /--acp/, "the detail names the flag that was missing");
      assert.deepEqual(await waitNoProcesses(marker, 5000), [], "gemini was stopped before the answer");
      console.log(`gemini without --acp: open failed after ${took} ms; model requests: ${mock.requests.map((q) => q.path).join(", ") || "none"}; detail:\n${d.detail}`);
      assert.equal(await s.end(), 0);
    } finally {
      s.kill();
      killMarked(marker);
      await mock.close();
      await run.cleanup();
    }
  },
);

test(
  "issue 29: gemini without --acp that exits at once ('Invalid auth method selected.') fails initialize_failed naming --acp, not spawn_failed",
  { skip: agentsInstalled(["gemini"]) ? false : INSTALL_HINT, timeout: 90_000 },
  async () => {
    const home = mkdtempSync(path.join(tmpdir(), "a4aa-noacp-"));
    const marker = newMarker();
    const spec = {
      id: "gemini-without-acp",
      lane: "acp",
      command: {
        program: agentBin("gemini"),
        args: [],
        env: { policy: "sanitized", inherit: ["PATH"], set: { HOME: home, GEMINI_API_KEY: "a-key", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9", GEMINI_CLI_NO_RELAUNCH: "true", A4AA_TEST_MARKER: marker } },
      },
    } as AgentSpec;
    const s = new TestSidecar();
    try {
      const t0 = Date.now();
      const r = await s.call("session/open", { spec, cwd: home });
      const d = r.error?.data;
      assert.equal(d?.code, "initialize_failed", JSON.stringify(r).slice(0, 2000));
      assert.equal(d.retryable, false, "the same command fails the same way");
      assert.match(d.detail, /gemini speaks ACP only when started with --acp[^\n]*add "--acp" to command\.args/);
      assert.match(d.detail, /Invalid auth method selected\./, "what it printed");
      assert.ok(Date.now() - t0 < 30_000, "no deadline waited for");
      assert.deepEqual(await waitNoProcesses(marker, 5000), []);
      assert.equal(await s.end(), 0);
    } finally {
      s.kill();
      killMarked(marker);
      rmSync(home, { recursive: true, force: true });
    }
  },
);
