// --max-agent-processes (issue 30, N7): the default is the schema's, and checkRoom refuses
// with at_capacity (retryable) naming the bound.
import assert from "node:assert/strict";
import { test } from "node:test";
import { OPENRPC_DOCUMENT_TEXT } from "../../../generated/ts/openrpc.js";
import { checkRoom, DEFAULT_MAX_AGENT_PROCESSES, maxAgentProcesses, setMaxAgentProcesses } from "../../../src/supervise/capacity.js";

test("R-HOSTILE-2: the agent-process bound's default is ServeLimits.maxAgentProcesses' default in the schema", () => {
  const doc = JSON.parse(OPENRPC_DOCUMENT_TEXT);
  assert.equal(doc.components.schemas.ServeLimits.properties.maxAgentProcesses.default, DEFAULT_MAX_AGENT_PROCESSES);
  assert.equal(maxAgentProcesses(), DEFAULT_MAX_AGENT_PROCESSES);
});

test("R-HOSTILE-2: checkRoom refuses past the bound with at_capacity, retryable, naming the flag", () => {
  setMaxAgentProcesses(3);
  try {
    assert.doesNotThrow(() => checkRoom(3, "open"));
    assert.throws(
      () => checkRoom(4, "open", "agents/prewarm of 4 more process(es)"),
      (e: any) => e.code === "at_capacity" && e.retryable === true && /bound of 3 agent processes \(--max-agent-processes/.test(e.detail),
    );
  } finally {
    setMaxAgentProcesses(DEFAULT_MAX_AGENT_PROCESSES);
  }
});
