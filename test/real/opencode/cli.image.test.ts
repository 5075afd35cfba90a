// R-CONTENT-1: an image prompt to the real opencode (cli lane): the image, written to the
// turn's private folder, is attached with `run -f FILE` and reaches the Chat Completions API
// as an image_url part (the mock model's config declares image input; without it opencode
// tells the model it cannot read images).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agentsInstalled, INSTALL_HINT } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { askRedSquare, withCliContent } from "../helpers/content.js";

describe("R-CONTENT-1: opencode cli driver, image", { skip: agentsInstalled(["opencode"]) ? false : INSTALL_HINT, timeout: 150_000 }, () => {
  it("R-CONTENT-1: an image reaches the model as an image_url part; its folder is gone after the turn", { timeout: 120_000 }, () =>
    withCliContent("opencode", "opencode", [reply.text("A red square.")], async (r) => {
      const s = await r.open();
      assert.equal(s.capabilities.content.image, true);
      const { out } = await askRedSquare((m, p) => r.h.request(m, p), s.sessionId, r.mock);
      assert.equal(out.text, "A red square.");
      assert.deepEqual(r.contentDirs(), [], "the turn's folder is gone");
    }));
});
