// R-CONTENT-1: an image prompt to the real Gemini CLI (cli lane, gemini driver): the image,
// written to the turn's private folder, goes as an `@path` include (the folder in
// `--include-directories`) and reaches the Gemini API as an inlineData part.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agentsInstalled, INSTALL_HINT } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { askRedSquare, withCliContent } from "../helpers/content.js";

describe("R-CONTENT-1: gemini cli driver, image", { skip: agentsInstalled(["gemini"]) ? false : INSTALL_HINT, timeout: 150_000 }, () => {
  it("R-CONTENT-1: an image reaches the Gemini API as inlineData; its folder is gone after the turn", { timeout: 120_000 }, () =>
    withCliContent("gemini", "gemini", [reply.text("A red square.")], async (r) => {
      const s = await r.open({ model: r.run.model });
      assert.equal(s.capabilities.content.image, true);
      const { out } = await askRedSquare((m, p) => r.h.request(m, p), s.sessionId, r.mock);
      assert.equal(out.text, "A red square.");
      assert.deepEqual(r.contentDirs(), [], "the turn's folder is gone");
    }));
});
