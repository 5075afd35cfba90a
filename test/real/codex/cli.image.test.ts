// R-CONTENT-1: an image prompt to the real `codex exec` (cli lane): written to a private
// folder, passed as `-i FILE`, it reaches the model; the folder is gone after the turn, also
// after a cancelled one.
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { agentsInstalled, INSTALL_HINT } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { RED_PNG, expectOneImage, startedArgs, withCliContent } from "../helpers/content.js";

describe("R-CONTENT-1: codex cli driver, image", { skip: agentsInstalled(["codex"]) ? false : INSTALL_HINT, timeout: 200_000 }, () => {
  it("R-CONTENT-1: an image goes to codex exec -i from a 0700 folder that is removed after the turn", { timeout: 180_000 }, () =>
    withCliContent("codex", "codex", [reply.text("A red square."), reply.slow(Array.from({ length: 80 }, (_, i) => `t${i} `), 200)], async (r) => {
      const s = await r.open();
      assert.deepEqual(s.capabilities.content, { image: true, resource: true, resourceLink: true });
      assert.equal(s.capabilities.images, true);
      const out = await r.h.request("session/prompt", { sessionId: s.sessionId, text: "What is in the picture?", content: [{ type: "image", mimeType: "image/png", data: RED_PNG }] });
      assert.equal(out.stopReason, "endTurn");
      assert.equal(out.text, "A red square.");
      const req = expectOneImage(r.mock.mainRequests()[0], RED_PNG);
      assert.match(JSON.stringify(req.body), /What is in the picture\?/);
      const args = startedArgs(r.h)[0];
      const i = args.indexOf("-i");
      assert.ok(i >= 0, `codex got -i: ${JSON.stringify(args)}`);
      assert.equal(path.dirname(path.dirname(args[i + 1])), r.tmp, "the image lived in the sidecar's TMPDIR");
      assert.deepEqual(r.contentDirs(), [], "the turn's folder is gone");

      // A cancelled turn removes its folder too; while it runs, the folder is private.
      const p = r.h.request("session/prompt", { sessionId: s.sessionId, text: "Again, slowly.", content: [{ type: "image", mimeType: "image/png", data: RED_PNG }] });
      const deadline = Date.now() + 60_000;
      while (r.mock.mainRequests().length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
      const dirs = r.contentDirs();
      assert.equal(dirs.length, 1, "the running turn's folder");
      assert.equal(statSync(path.join(r.tmp, dirs[0])).mode & 0o777, 0o700);
      assert.equal(r.mock.mainRequests()[1].images.at(-1)?.data, RED_PNG);
      await r.h.request("session/cancel", { sessionId: s.sessionId });
      assert.equal((await p).stopReason, "cancelled");
      assert.deepEqual(r.contentDirs(), [], "the cancelled turn's folder is gone");
    }));
});
