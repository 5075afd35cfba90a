// R-REPLAY-1 with the real `codex app-server`: a command approval, recorded, then replayed with no model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { INSTALL_HINT, agentsInstalled } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import type { AgentSpec } from "../../../generated/ts/types.js";
import { recordThenReplay } from "./record-replay.js";

test("R-REPLAY-1: codex app-server, a command and its approval: the replay gives the host the same events", { skip: agentsInstalled(["codex"]) ? false : INSTALL_HINT, timeout: 300_000 }, async () => {
  const r = await recordThenReplay({
    agent: "codex",
    commandArgs: ["app-server"],
    spec: (command) => ({ id: "codex", lane: "rpc", dialect: "codexAppServer", command }) as AgentSpec,
    script: [reply.shell("touch approved.txt"), reply.text("done")],
    prompts: ["make a file"],
    onPermission: () => ({ result: { selected: "accept" } }),
  });
  assert.equal(r.asked[0], 1);
  assert.equal(r.asked[1], 1, "the approval is asked again on replay");
  assert.ok(r.recorded.some((e) => e.startsWith("toolCall")));
  assert.deepEqual(r.replayed, r.recorded);
});
