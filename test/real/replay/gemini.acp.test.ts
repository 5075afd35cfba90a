// R-REPLAY-1 with the real `gemini --acp`: a shell tool call with its permission, recorded, then replayed with no model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { INSTALL_HINT, agentsInstalled } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import type { AgentSpec } from "../../../generated/ts/types.js";
import { recordThenReplay } from "./record-replay.js";

test("R-REPLAY-1: gemini --acp, a tool call and a permission: the replay gives the host the same events", { skip: agentsInstalled(["gemini-acp"]) ? false : INSTALL_HINT, timeout: 300_000 }, async () => {
  const r = await recordThenReplay({
    agent: "gemini-acp",
    spec: (command) => ({ id: "gemini", lane: "acp", command }) as AgentSpec,
    script: [reply.shell("echo a4aa-ok | tr a-z A-Z > result.txt && cat result.txt"), reply.text("Tool turn finished.")],
    prompts: ["Run the command."],
    options: { permission: "ask" },
    onPermission: (p) => {
      const allow = p.options.find((o: { kind: string }) => o.kind === "allowOnce");
      return { result: allow ? { selected: allow.optionId } : { cancelled: true } };
    },
  });
  assert.ok(r.asked[0] >= 1 && r.asked[1] === r.asked[0], `asked again on replay: ${r.asked}`);
  assert.ok(r.recorded.some((e) => e.startsWith("toolCall")));
  assert.deepEqual(r.replayed, r.recorded);
});
