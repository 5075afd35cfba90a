import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, readdirSync, statSync, chmodSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfinedFs } from "../../../../src/lanes/acp/fs.js";
import { RpcHandlerError } from "../../../../src/transport/json-rpc.js";
import { scratchDir } from "../../../helpers/tmp.js";

function tree() {
  const top = scratchDir("a4aa-fs");
  const root = path.join(top, "work");
  mkdirSync(path.join(root, "sub"), { recursive: true });
  writeFileSync(path.join(root, "a.txt"), "one\ntwo\nthree\nfour");
  writeFileSync(path.join(top, "secret.txt"), "outside");
  symlinkSync(path.join(top, "secret.txt"), path.join(root, "escape"));
  symlinkSync(top, path.join(root, "updir"));
  symlinkSync(path.join(root, "a.txt"), path.join(root, "inner-link"));
  symlinkSync(path.join(top, "missing.txt"), path.join(root, "dangling"));
  return { top, root, fs: new ConfinedFs(root) };
}
const refused = (p: Promise<unknown>, re: RegExp) => assert.rejects(p, (e) => e instanceof RpcHandlerError && re.test(e.message));

test("reads inside the cwd, with line and limit", async () => {
  const { root, fs } = tree();
  assert.equal((await fs.read({ path: path.join(root, "a.txt") })).content, "one\ntwo\nthree\nfour");
  assert.equal((await fs.read({ path: path.join(root, "a.txt"), line: 2, limit: 2 })).content, "two\nthree");
  assert.equal((await fs.read({ path: path.join(root, "inner-link") })).content.length, 18);
});

test("refuses relative paths, paths outside, and symlink escapes", async () => {
  const { top, root, fs } = tree();
  await refused(fs.read({ path: "a.txt" }), /absolute/);
  await refused(fs.read({ path: path.join(top, "secret.txt") }), /outside/);
  await refused(fs.read({ path: path.join(root, "..", "secret.txt") }), /outside/);
  await refused(fs.read({ path: path.join(root, "escape") }), /outside/);
  await refused(fs.read({ path: path.join(root, "updir", "secret.txt") }), /outside/);
  await refused(fs.write({ path: path.join(root, "escape"), content: "x" }), /outside/);
  await refused(fs.write({ path: path.join(root, "updir", "new.txt"), content: "x" }), /outside/);
  await refused(fs.write({ path: path.join(root, "dangling"), content: "x" }), /symlink/);
  assert.equal(readFileSync(path.join(top, "secret.txt"), "utf8"), "outside");
});

test("writes atomically, create new files, keep modes, leave no temp files", async () => {
  const { root, fs } = tree();
  const f = path.join(root, "sub", "new.txt");
  await fs.write({ path: f, content: "hello" });
  assert.equal(readFileSync(f, "utf8"), "hello");
  const sh = path.join(root, "run.sh");
  writeFileSync(sh, "old");
  chmodSync(sh, 0o755);
  await fs.write({ path: sh, content: "new" });
  assert.equal(statSync(sh).mode & 0o777, 0o755);
  assert.deepEqual(readdirSync(path.join(root, "sub")), ["new.txt"]);
  await refused(fs.write({ path: path.join(root, "nodir", "x.txt"), content: "x" }), /no such directory/);
});
