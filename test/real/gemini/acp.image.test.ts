// R-CONTENT-1: an image prompt to the real `gemini --acp` (acp lane): an ACP image block
// (promptCapabilities.image) reaches the Gemini API as an inlineData part; an embedded file
// goes as ACP embedded context. Observed with gemini-cli 0.61.0: a prompt that holds an
// embedded resource (or a file:// resource_link) loses its images inside Gemini — its
// `#resolvePrompt` rebuilds the parts from the text alone — so the two go in separate turns.
import assert from "node:assert/strict";
import { test } from "node:test";
import { INSTALL_HINT, agentsInstalled } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { NOTES_FILE, askRedSquare } from "../helpers/content.js";
import { realAcpRig } from "../helpers/acp-suite.js";
import { teardownRealRig } from "../helpers/teardown.js";

test("R-CONTENT-1: an ACP image block, then an embedded file, reach the Gemini API through gemini --acp", { skip: agentsInstalled(["gemini-acp"]) ? false : INSTALL_HINT, timeout: 110_000 }, async () => {
  const r = await realAcpRig("gemini-acp", [reply.text("A red square."), reply.text("Noted.")]);
  const { mock, run, spec } = r;
  try {
    const open = await r.s.ok("session/open", { spec, cwd: run.cwd });
    assert.equal(open.capabilities.content.image, true, "gemini offers promptCapabilities.image");
    assert.equal(open.capabilities.content.resource, true, "and embeddedContext");
    await askRedSquare((m, p) => r.s.ok(m, p), open.sessionId, mock);
    const second = await r.s.ok("session/prompt", {
      sessionId: open.sessionId,
      text: "Keep this in mind.",
      content: [NOTES_FILE],
    });
    assert.match(second.text, /Noted\./);
    const body = JSON.stringify(mock.mainRequests()[1].body.contents.at(-1));
    assert.match(body, /Keep this in mind\./);
    assert.match(body, /remember the colour/, "the embedded file's text reached the model");
    await r.s.ok("session/close", { sessionId: open.sessionId });
  } finally {
    await teardownRealRig(r);
  }
});
