// R-CONTENT-1: an image prompt to the real Claude Code (cli lane, claudeCode driver): an
// Anthropic image block in the stream-json `user` line reaches the model as it is; an
// embedded file goes as a delimited text block.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agentsInstalled, INSTALL_HINT } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { NOTES_FILE, askRedSquare, withCliContent } from "../helpers/content.js";

describe("R-CONTENT-1: claudeCode cli driver, image", { skip: agentsInstalled(["claude"]) ? false : INSTALL_HINT, timeout: 150_000 }, () => {
  it("R-CONTENT-1: an image block and an embedded file reach the Anthropic API", { timeout: 120_000 }, () =>
    withCliContent("claude", "claudeCode", [reply.text("A red square.")], async (r) => {
      const s = await r.open();
      assert.deepEqual(s.capabilities.content, { image: true, resource: true, resourceLink: true });
      const { out, req } = await askRedSquare((m, p) => r.h.request(m, p), s.sessionId, r.mock, [NOTES_FILE]);
      assert.equal(out.text, "A red square.");
      assert.match(JSON.stringify(req.body), /\[Embedded file file:\/\/\/repo\/notes.txt \(text\/plain\)\]\\nremember the colour\\n\[End of file:\/\/\/repo\/notes.txt\]/);
      assert.deepEqual(r.contentDirs(), [], "nothing written for a stream-json image");
    }));
});
