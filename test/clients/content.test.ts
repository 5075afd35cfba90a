// The TS client's prompt content: client.prompt(id, text, {content}) with blocks made from
// files; through a real sidecar to the generic echo CLI (text only: files as text, an image
// refused with unsupported_content).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { A4aaError, fileLink, fileResource, image, imageFile, type CliAgentSpec } from "../../clients/ts/index.js";
import { ROOT, T, withClient } from "./helpers.js";

const echo: CliAgentSpec = {
  id: "echo",
  lane: "cli",
  driver: "generic",
  command: { program: process.execPath, args: [path.join(ROOT, "test/fixtures/cli/echo.mjs")], env: { policy: "sanitized", inherit: ["PATH", "HOME"] } },
};

test("R-CONTENT-1: client.prompt with content: files reach a text-only CLI as text; an image is unsupported_content", { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "a4aa-ts-content-"));
  try {
    const notes = path.join(dir, "notes.txt");
    writeFileSync(notes, "remember the colour\n");
    const png = path.join(dir, "dot.png");
    writeFileSync(png, Buffer.from("89504e470d0a1a0a", "hex"));
    assert.deepEqual(imageFile(png), { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" });
    assert.throws(() => imageFile(path.join(dir, "x.bmp")), /not a png/);
    await withClient({}, async (c) => {
      const open = await c.sessionOpen({ spec: echo, cwd: ROOT }, T);
      assert.deepEqual(open.capabilities.content, { image: false, resource: true, resourceLink: true });
      const out = await c.prompt(open.sessionId, "Read:", { ...T, content: [fileResource(notes, "text/plain"), fileLink(notes)] });
      assert.equal(
        out.text,
        `echo: Read:\n\n[Embedded file file://${notes} (text/plain)]\nremember the colour\n[End of file://${notes}]\n\n[Linked file "notes.txt": ${notes}]\n`,
      );
      const err = await c.prompt(open.sessionId, "", { ...T, content: [image(new Uint8Array([1, 2, 3]), "image/png")] }).catch((e) => e);
      assert.ok(err instanceof A4aaError, String(err));
      assert.equal(err.code, "unsupported_content");
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
