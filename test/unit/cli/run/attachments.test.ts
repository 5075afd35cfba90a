import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { AttachError, attachment, describeAttachment, imageType, lineCount } from "../../../../src/cli/run/attachments.js";
import { scratchDir } from "../../../helpers/tmp.js";

test("imageType knows png, jpeg, gif and webp by their first bytes, and nothing else", () => {
  assert.equal(imageType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])), "image/png");
  assert.equal(imageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), "image/jpeg");
  assert.equal(imageType(Buffer.from("GIF89a....", "latin1")), "image/gif");
  assert.equal(imageType(Buffer.from("RIFF\x10\x00\x00\x00WEBPVP8 ", "latin1")), "image/webp");
  assert.equal(imageType(Buffer.from("RIFF\x10\x00\x00\x00WAVEfmt ", "latin1")), undefined);
  assert.equal(imageType(Buffer.from("<svg xmlns=", "latin1")), undefined);
  assert.equal(imageType(Buffer.alloc(0)), undefined);
});

test("a text file becomes an embedded resource with its file:// uri; lines are counted as a person does", () => {
  const dir = scratchDir("a4aa-attach");
  writeFileSync(path.join(dir, "a b.ts"), "const x = 1;\nexport { x };\n");
  const b = attachment("a b.ts", dir);
  assert.deepEqual(b, { type: "resource", uri: `file://${path.join(dir, "a%20b.ts")}`, text: "const x = 1;\nexport { x };\n" });
  assert.equal(describeAttachment("a b.ts", b), "a b.ts (2 lines)");
  assert.equal(lineCount(""), 0);
  assert.equal(lineCount("one"), 1);
  assert.equal(lineCount("one\ntwo"), 2);
});

test("an image is sent as base64 of its bytes; invalid UTF-8 and NUL bytes are refused as binary", () => {
  const dir = scratchDir("a4aa-attach");
  const gif = Buffer.concat([Buffer.from("GIF89a", "latin1"), Buffer.from([1, 0, 1, 0, 0, 0, 0])]);
  writeFileSync(path.join(dir, "x.gif"), gif);
  assert.deepEqual(attachment("x.gif", dir), { type: "image", mimeType: "image/gif", data: gif.toString("base64") });
  writeFileSync(path.join(dir, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  assert.throws(() => attachment("latin1.txt", dir), (e: unknown) => e instanceof AttachError && /neither text/.test((e as Error).message));
  writeFileSync(path.join(dir, "nul.txt"), "a\u0000b");
  assert.throws(() => attachment("nul.txt", dir), AttachError);
});
