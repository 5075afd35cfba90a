// R-CUSTODY-1 with the agents whose base URL is a variable (see case.ts): Claude Code,
// claude-agent-acp, Gemini CLI (--acp), Qwen Code; and the opens custody refuses before
// anything is spawned.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { INSTALL_HINT, agentsInstalled } from "../../agents/agents.js";
import { processesWithMarker } from "../../helpers/procs.js";
import { fakeAgentSpec } from "../../helpers/sidecar.js";
import { catalogRig, reply, teardown } from "../catalog/rig.js";
import { custodySuite } from "./case.js";

custodySuite({ agent: "claude", id: "claude-code" });
custodySuite({ agent: "claude-agent-acp", id: "claude-agent-acp" });
custodySuite({ agent: "gemini-acp", id: "gemini" });
custodySuite({ agent: "qwen", id: "qwen" });

describe("custody refused before spawning", { skip: agentsInstalled(["opencode"]) ? false : INSTALL_HINT }, () => {
  test("R-CUSTODY-1: a spec open and an entry without modelApi (opencode) are unsupported_selector; no process starts", { timeout: 60_000 }, async () => {
    const r = await catalogRig("opencode", "opencode", [reply.text("never")]);
    try {
      const viaSpec = await r.s.call("session/open", { spec: fakeAgentSpec(r.marker), options: { custody: "proxy" } });
      assert.equal(viaSpec.error?.data.code, "unsupported_selector");
      assert.match(viaSpec.error!.data.detail, /needs a catalog agent/);
      const opencode = await r.s.call("session/open", { agent: { id: "opencode", credentials: r.credentials }, cwd: r.run.cwd, options: { custody: "proxy" } });
      assert.equal(opencode.error?.data.code, "unsupported_selector");
      assert.match(opencode.error!.data.detail, /has no modelApi/);
      assert.deepEqual(processesWithMarker(r.marker), [], "nothing was spawned");
      assert.equal(r.mock.requests.length, 0);
    } finally {
      await teardown(r);
    }
  });
});
