// R-CONTENT-1: an image prompt to the real claude-agent-acp (acp lane): an ACP image block
// (promptCapabilities.image) reaches the Anthropic API as an image block; so does an image
// next to embedded context (unlike gemini --acp 0.61, which drops it then).
import assert from "node:assert/strict";
import { test } from "node:test";
import { INSTALL_HINT, agentsInstalled } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { RED_PNG, solidPng } from "../../helpers/png.js";
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
    const out = await r.s.ok("session/prompt", {
      sessionId: open.sessionId,
      text: "What is in the picture?",
      content: [{ type: "image", mimeType: "image/png", data: RED_PNG }],
    });
    assert.equal(out.stopReason, "endTurn");
    assert.match(out.text, /A red square\./);
    const req = mock.mainRequests()[0];
    assert.equal(req.images.length, 1, `one image part reached the model: ${JSON.stringify(req.images.map((i) => i.mimeType))}`);
    assert.equal(req.images[0].mimeType, "image/png");
    assert.equal(req.images[0].data, RED_PNG);
    assert.match(JSON.stringify(req.body), /What is in the picture\?/);
    const second = await r.s.ok("session/prompt", {
      sessionId: open.sessionId,
      text: "Keep this in mind.",
      content: [
        { type: "image", mimeType: "image/png", data: BLUE_PNG },
        { type: "resource", uri: "file:///repo/notes.txt", mimeType: "text/plain", text: "remember the colour" },
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
