// R-CONTENT-1: an image prompt to the real `codex app-server` (rpc lane): a `turn/start`
// image item with a data URL reaches the Responses API as an input_image; a link goes as
// a text item naming the path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { finish, reply, skip, startCodex, userTexts } from "../helpers/codex-rpc.js";
import { solidPng } from "../../helpers/png.js";

test("R-CONTENT-1: an image item and a resource link reach the model through codex app-server", { skip, timeout: 110_000 }, async () => {
  const r = await startCodex([reply.text("Two squares.")]);
  const sid = await r.open();
  const open = r.h.received.find((m) => m.result?.sessionId === sid)!.result;
  assert.deepEqual(open.capabilities.content, { image: true, resource: true, resourceLink: true });
  const blue = solidPng(4, 4, [20, 40, 220]).toString("base64");
  const green = solidPng(6, 6, [20, 200, 40]).toString("base64");
  const out = await r.h.ok("session/prompt", {
    sessionId: sid,
    text: "Compare the pictures.",
    content: [
      { type: "image", mimeType: "image/png", data: blue },
      { type: "resourceLink", uri: "file:///repo/src/colours.ts", name: "colours.ts" },
      { type: "image", mimeType: "image/png", data: green },
    ],
  });
  assert.equal(out.stopReason, "endTurn");
  assert.equal(out.text, "Two squares.");
  const req = r.mock.mainRequests()[0];
  assert.deepEqual(
    req.images.map((i) => [i.mimeType, i.data]),
    [
      ["image/png", blue],
      ["image/png", green],
    ],
    "both images, in order",
  );
  const texts = userTexts(req).join("\n");
  assert.match(texts, /Compare the pictures\./);
  assert.match(texts, /\[Linked file "colours\.ts": \/repo\/src\/colours\.ts\]/);
  await finish(r);
});
