// R-REPLAY-1 with the real Claude Code CLI (stream-json, control protocol): a shell tool
// call allowed through permission/request, recorded, then replayed with no model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { INSTALL_HINT, agentsInstalled } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import type { AgentSpec } from "../../../generated/ts/types.js";
import { recordThenReplay } from "./record-replay.js";

test("R-REPLAY-1: Claude Code CLI, a tool call and a permission: the replay gives the host the same events", { skip: agentsInstalled(["claude"]) ? false : INSTALL_HINT, timeout: 300_000 }, async () => {
  const r = await recordThenReplay({
    agent: "claude",
    spec: (command) => ({ id: "claude", lane: "cli", driver: "claudeCode", command }) as AgentSpec,
    script: [reply.shell("touch allowed.txt"), reply.text("Made it.")],
    prompts: ["Make a file."],
    onPermission: () => ({ result: { selected: "allow" } }),
  });
  assert.equal(r.asked[0], 1);
  assert.equal(r.asked[1], 1, "the permission is asked again on replay");
  assert.ok(r.recorded.some((e) => e.startsWith("toolCall")));
  assert.deepEqual(r.replayed, r.recorded);
});
