// Prompt content (R-CONTENT-1/2) on the cli lane through a real `a4aa serve`, against fake
// CLIs: what each driver declares, refusals before anything starts, how embedded files and
// links become text, images as `codex exec -i` files and as stream-json image blocks.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { RED_PNG } from "../../helpers/png.js";
import { FIXTURES, type Host, nodeSpec, open, RpcFailure, withHost } from "./helpers/host.js";

const PLAYER = path.join(FIXTURES, "cli/player.mjs");
const ECHO = path.join(FIXTURES, "cli/echo.mjs");
const FAKE = path.join(FIXTURES, "cli/fake-claude.mjs");
const tmp = mkdtempSync(path.join(os.tmpdir(), "a4aa-content-it-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const fresh = (name: string) => path.join(tmp, `${name}-${++n}`);
const lines = (file: string): any[] => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
const image = { type: "image", mimeType: "image/png", data: RED_PNG };

function player(driver: string) {
  const s = nodeSpec(driver, PLAYER);
  (s.command as { args: string[] }).args.push(driver);
  return s;
}

/** A sidecar whose TMPDIR is a fresh folder (where a4aa writes prompt files). */
function withTmpHost(fn: (h: Host, sidecarTmp: string) => Promise<void>): Promise<void> {
  const dir = fresh("sidecar-tmp");
  mkdirSync(dir, { recursive: true });
  return withHost((h) => fn(h, dir), { env: { ...process.env, TMPDIR: dir } });
}

const contentDirs = (dir: string) => readdirSync(dir).filter((d) => d.startsWith("a4aa-content-"));

describe("prompt content on the cli lane", { timeout: 60_000 }, () => {
  it("R-CONTENT-1: capabilities.content per driver: images where the CLI takes them, files and links everywhere", () =>
    withHost(async (h) => {
      const want: Record<string, boolean> = { codex: true, gemini: true, opencode: true, cursorAgent: false, amp: false };
      for (const [driver, img] of Object.entries(want)) {
        const s = await open(h, { spec: player(driver) });
        assert.deepEqual(s.capabilities.content, { image: img, resource: true, resourceLink: true }, driver);
        assert.equal(s.capabilities.images, img, driver);
      }
      const g = await open(h, { spec: nodeSpec("generic", ECHO) });
      assert.deepEqual(g.capabilities.content, { image: false, resource: true, resourceLink: true });
      const c = await open(h, { spec: nodeSpec("claudeCode", FAKE) });
      assert.deepEqual(c.capabilities.content, { image: true, resource: true, resourceLink: true });
      const q = await open(h, { spec: nodeSpec("qwen", FAKE) });
      assert.deepEqual(q.capabilities.content, { image: false, resource: true, resourceLink: true });
    }));

  it("R-CONTENT-1: an image to a text-only driver (cursorAgent) fails unsupported_content before any process starts; the session goes on", () =>
    withHost(async (h) => {
      const log = fresh("argv");
      const s = await open(h, { spec: player("cursorAgent"), env: { FAKE_LOG: log } });
      const err = await h.request("session/prompt", { sessionId: s.sessionId, text: "text", content: [image] }).catch((e) => e);
      assert.ok(err instanceof RpcFailure, String(err));
      assert.equal(err.code, "unsupported_content");
      assert.equal(err.error.data!.stage, "prompt");
      assert.match(err.error.data!.detail!, /cannot take image content/);
      assert.equal(err.error.data!.uncertainEffect, false);
      assert.equal(lines(log).length, 0, "no process was started");
      assert.equal(h.groups.size, 0, "nothing ran");
      const ok = await h.request("session/prompt", { sessionId: s.sessionId, text: "text" });
      assert.equal(ok.stopReason, "endTurn");
      assert.equal(lines(log).length, 1);
    }));

  it("R-CONTENT-2: image data that is not base64 is invalid_params before anything is written or started", () =>
    withTmpHost(async (h, sidecarTmp) => {
      const log = fresh("argv");
      const s = await open(h, { spec: player("codex"), env: { FAKE_LOG: log } });
      for (const data of ["not base64!", "abc", "ab=c"]) {
        const err = await h.request("session/prompt", { sessionId: s.sessionId, text: "text", content: [{ ...image, data }] }).catch((e) => e);
        assert.equal(err.code, "invalid_params", data);
        assert.equal(err.error.data!.stage, "prompt");
      }
      assert.equal(lines(log).length, 0, "no process was started");
      assert.deepEqual(contentDirs(sidecarTmp), [], "nothing was written");
    }));

  it("R-CONTENT-1: codex gets each image as -i FILE from a private folder that is gone after the turn, also after a failed one", () =>
    withTmpHost(async (h, sidecarTmp) => {
      const log = fresh("argv");
      const s = await open(h, { spec: player("codex"), env: { FAKE_LOG: log } });
      const out = await h.request("session/prompt", { sessionId: s.sessionId, text: "text", content: [image, { type: "image", mimeType: "image/jpeg", data: RED_PNG }] });
      assert.equal(out.stopReason, "endTurn");
      const argv: string[] = lines(log)[0].argv;
      const files = argv.flatMap((a, i) => (a === "-i" ? [argv[i + 1]] : []));
      assert.equal(files.length, 2, JSON.stringify(argv));
      assert.match(files[0], /image-1\.png$/);
      assert.match(files[1], /image-2\.jpg$/);
      assert.equal(path.dirname(files[0]), path.dirname(files[1]));
      assert.ok(path.dirname(files[0]).startsWith(path.join(sidecarTmp, "a4aa-content-")), files[0]);
      assert.ok(argv.indexOf("-i") < argv.indexOf("--"), "the images come before the prompt");
      assert.equal(argv.at(-1), "text");
      assert.deepEqual(contentDirs(sidecarTmp), [], "removed after the turn");
      const err = await h.request("session/prompt", { sessionId: s.sessionId, text: "error", content: [image] }).catch((e) => e);
      assert.equal(err.code, "agent_failed");
      assert.deepEqual(contentDirs(sidecarTmp), [], "removed after a failed turn");
    }));

  it("R-CONTENT-1: a turn's image folder is gone when the session closes mid-turn, before close answers", () =>
    withTmpHost(async (h, sidecarTmp) => {
      const log = fresh("argv");
      const s = await open(h, { spec: player("codex"), env: { FAKE_LOG: log } });
      const p = h.request("session/prompt", { sessionId: s.sessionId, text: "slow", content: [image] }).catch((e) => e);
      const deadline = Date.now() + 10_000;
      while (lines(log).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(contentDirs(sidecarTmp).length, 1, "the running turn's folder");
      await h.request("session/close", { sessionId: s.sessionId });
      assert.deepEqual(contentDirs(sidecarTmp), [], "gone when close answers");
      await p;
    }));

  it("R-CONTENT-1: gemini gets images as @path includes with their folder in --include-directories; opencode as -f FILE", () =>
    withTmpHost(async (h, sidecarTmp) => {
      const log = fresh("argv");
      const g = await open(h, { spec: player("gemini"), env: { FAKE_LOG: log } });
      assert.equal((await h.request("session/prompt", { sessionId: g.sessionId, text: "text", content: [image, { type: "text", text: "and more" }] })).stopReason, "endTurn");
      const o = await open(h, { spec: player("opencode"), env: { FAKE_LOG: log } });
      assert.equal((await h.request("session/prompt", { sessionId: o.sessionId, text: "text", content: [image] })).stopReason, "endTurn");
      const [ga, oa] = lines(log).map((l) => l.argv as string[]);
      const dir = ga[ga.indexOf("--include-directories") + 1];
      assert.ok(dir.startsWith(path.join(sidecarTmp, "a4aa-content-")), JSON.stringify(ga));
      assert.equal(ga.at(-1), `--prompt=text\n\n@${path.join(dir, "image-1.png")}\n\nand more`);
      const f = oa[oa.indexOf("-f") + 1];
      assert.ok(f.startsWith(path.join(sidecarTmp, "a4aa-content-")) && f.endsWith("image-1.png"), JSON.stringify(oa));
      assert.deepEqual(oa.slice(-2), ["--", "text"]);
      assert.deepEqual(contentDirs(sidecarTmp), [], "both folders are gone");
    }));

  it("R-CONTENT-1: embedded files are inlined as delimited blocks naming their uri, links as paths, in order (generic)", () =>
    withHost(async (h) => {
      const s = await open(h, { spec: nodeSpec("generic", ECHO) });
      const out = await h.request("session/prompt", {
        sessionId: s.sessionId,
        text: "Look:",
        content: [
          { type: "resource", uri: "file:///repo/a%20b.ts", mimeType: "text/x-typescript", text: "export const a = 1;" },
          { type: "resourceLink", uri: "file:///repo/docs/read%20me.md", name: "readme" },
          { type: "resourceLink", uri: "https://example.test/spec" },
          { type: "text", text: "Done." },
        ],
      });
      assert.equal(
        out.text,
        "echo: Look:\n\n[Embedded file file:///repo/a%20b.ts (text/x-typescript)]\nexport const a = 1;\n[End of file:///repo/a%20b.ts]\n\n" +
          '[Linked file "readme": /repo/docs/read me.md]\n\n[Linked resource: https://example.test/spec]\n\nDone.\n',
      );
    }));

  it("R-CONTENT-1: claudeCode gets images as stream-json image blocks, files as text blocks, in order", () =>
    withHost(async (h) => {
      const log = fresh("user");
      const s = await open(h, { spec: nodeSpec("claudeCode", FAKE), env: { FAKE_USER_LOG: log } });
      const out = await h.request("session/prompt", {
        sessionId: s.sessionId,
        text: "text",
        content: [image, { type: "resource", uri: "file:///x.txt", text: "x" }],
      });
      assert.equal(out.stopReason, "endTurn");
      assert.deepEqual(lines(log)[0], [
        { type: "text", text: "text" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: RED_PNG } },
        { type: "text", text: "[Embedded file file:///x.txt]\nx\n[End of file:///x.txt]" },
      ]);
    }));

  it("R-CONTENT-1: an image to qwen (its stream-json input is text only) fails unsupported_content; nothing is sent", () =>
    withHost(async (h) => {
      const log = fresh("user");
      const s = await open(h, { spec: nodeSpec("qwen", FAKE), env: { FAKE_USER_LOG: log } });
      const err = await h.request("session/prompt", { sessionId: s.sessionId, text: "text", content: [image] }).catch((e) => e);
      assert.equal(err.code, "unsupported_content");
      assert.deepEqual(lines(log), [], "no user line was written");
    }));
});
