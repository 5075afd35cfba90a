// R-CONTENT-1: an image prompt to the real claude-agent-acp (acp lane): an ACP image block
// (promptCapabilities.image) reaches the Anthropic API as an image block; so does an image
// next to embedded context (unlike gemini --acp 0.61, which drops it then).
import assert from "node:assert/strict";
import { test } from "node:test";
import { INSTALL_HINT, agentsInstalled } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { RED_PNG, solidPng } from "../../helpers/png.js";
import { NOTES_FILE, askRedSquare } from "../helpers/content.js";
import { realAcpRig } from "../helpers/acp-suite.js";
import { teardownRealRig } from "../helpers/teardown.js";

const BLUE_PNG = solidPng(4, 4, [20, 40, 220]).toString("base64");

test("R-CONTENT-1: an ACP image block, alone and beside an embedded file, reaches the Anthropic API through claude-agent-acp", { skip: agentsInstalled(["claude-agent-acp"]) ? false : INSTALL_HINT, timeout: 110_000 }, async () => {
  const r = await realAcpRig("claude-agent-acp", [reply.text("A red square."), reply.text("Noted.")]);
  const { mock, run, spec } = r;
  try {
    const open = await r.s.ok("session/open", { spec, cwd: run.cwd });
    assert.equal(open.capabilities.content.image, true, "claude-agent-acp offers promptCapabilities.image");
    assert.equal(open.capabilities.content.resource, true, "and embeddedContext");
    await askRedSquare((m, p) => r.s.ok(m, p), open.sessionId, mock);
    const second = await r.s.ok("session/prompt", {
      sessionId: open.sessionId,
      text: "Keep this in mind.",
      content: [
        { type: "image", mimeType: "image/png", data: BLUE_PNG },
        NOTES_FILE,
      ],
    });
    assert.match(second.text, /Noted\./);
    const req2 = mock.mainRequests()[1];
    assert.deepEqual(req2.images.map((i) => i.data), [RED_PNG, BLUE_PNG], "the history's image, then the one beside the embedded file");
    const body = JSON.stringify(req2.body.messages.at(-1));
    assert.match(body, /Keep this in mind\./);
    assert.match(body, /remember the colour/, "the embedded file's text reached the model");
    await r.s.ok("session/close", { sessionId: open.sessionId });
  } finally {
    await teardownRealRig(r);
  }
});
