// R-CONTENT-1: a prompt that is only an image (no text) to the real `codex exec` (cli lane):
// the driver passes an empty prompt beside `-i FILE`, and the image still reaches the model.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agentsInstalled, INSTALL_HINT } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { RED_PNG, withCliContent } from "../helpers/content.js";

describe("R-CONTENT-1: codex cli driver, an image with no text", { skip: agentsInstalled(["codex"]) ? false : INSTALL_HINT, timeout: 120_000 }, () => {
  it("R-CONTENT-1: content alone (an image block, no text) is a prompt codex exec takes", { timeout: 100_000 }, () =>
    withCliContent("codex", "codex", [reply.text("A red square.")], async (r) => {
      const s = await r.open();
      const out = await r.h.request("session/prompt", { sessionId: s.sessionId, content: [{ type: "image", mimeType: "image/png", data: RED_PNG }] });
      assert.equal(out.stopReason, "endTurn");
      assert.equal(out.text, "A red square.");
      const req = r.mock.mainRequests()[0];
      assert.equal(req.images.length, 1, "the image reached the model");
      assert.equal(req.images[0].data, RED_PNG);
      assert.deepEqual(r.contentDirs(), [], "the turn's folder is gone");
    }));
});
