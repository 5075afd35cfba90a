// How prompt content becomes text and agent-native input for the lanes that need it
// (R-CONTENT-1): content-text.ts, the rpc lane's turn/start items, the stream-json user line.
import assert from "node:assert/strict";
import { test } from "node:test";
import { blocksText, linkText, resourceText, uriAsPath } from "../../../src/lanes/content-text.js";
import { userContent } from "../../../src/lanes/cli/user-content.js";
import { codexInput } from "../../../src/lanes/rpc/turn-input.js";
import type { TurnInput } from "../../../src/lanes/lane.js";

const input = (blocks: TurnInput["blocks"]): TurnInput => ({ text: "", blocks });

test("R-CONTENT-1: an embedded file is a block between marker lines naming its uri; a link is its path", () => {
  assert.equal(resourceText({ type: "resource", uri: "file:///a.ts", text: "x\n" }), "[Embedded file file:///a.ts]\nx\n[End of file:///a.ts]");
  assert.equal(resourceText({ type: "resource", uri: "mem://n", mimeType: "text/plain", text: "y" }), "[Embedded file mem://n (text/plain)]\ny\n[End of mem://n]");
  assert.equal(linkText({ type: "resourceLink", uri: "file:///r/a%20b.md", name: "notes", mimeType: "text/markdown" }), '[Linked file "notes": /r/a b.md (text/markdown)]');
  assert.equal(linkText({ type: "resourceLink", uri: "https://x.test/y" }), "[Linked resource: https://x.test/y]");
  assert.equal(uriAsPath("file://host/x"), "file://host/x", "a file uri with a host stays a uri");
  assert.equal(blocksText([{ type: "text", text: "a" }, { type: "image", mimeType: "image/png", data: "AAAA" }, { type: "text", text: "" }, { type: "text", text: "b" }]), "a\n\nb");
});

test("R-CONTENT-1: codex app-server input items: text items and data-URL image items, in order", () => {
  assert.deepEqual(
    codexInput(input([{ type: "text", text: "look" }, { type: "image", mimeType: "image/webp", data: "AAAA" }, { type: "resourceLink", uri: "file:///x" }])),
    [
      { type: "text", text: "look", text_elements: [] },
      { type: "image", url: "data:image/webp;base64,AAAA" },
      { type: "text", text: "[Linked file: /x]", text_elements: [] },
    ],
  );
});

test("R-CONTENT-1: a stream-json user line: Anthropic image blocks, text blocks, in order", () => {
  assert.deepEqual(userContent(input([{ type: "image", mimeType: "image/gif", data: "R0lG" }, { type: "text", text: "what?" }])), [
    { type: "image", source: { type: "base64", media_type: "image/gif", data: "R0lG" } },
    { type: "text", text: "what?" },
  ]);
});
