// The end of a real-agent test: the sidecar exits 0 on EOF and nothing of the agent is left
// (R-SUP-1); then, whatever happened, everything the test started is gone.
import assert from "node:assert/strict";
import type { AgentRun } from "../../agents/agents.js";
import type { ModelMock } from "../../agents/mocks/common.js";
import { killMarked, waitNoProcesses, type TestSidecar } from "../../helpers/sidecar.js";

export interface RealRig {
  s: TestSidecar;
  mock: ModelMock;
  run: AgentRun;
  marker: string;
}

export async function teardownRealRig(r: RealRig): Promise<void> {
  try {
    assert.equal(await r.s.end(30_000), 0, `the sidecar exits 0\n${r.s.stderr.slice(-2000)}`);
    assert.deepEqual(await waitNoProcesses(r.marker, 5000), [], "no process of the agent is left (R-SUP-1)");
  } finally {
    r.s.kill();
    killMarked(r.marker);
    await r.mock.close();
    await r.run.cleanup();
  }
}
