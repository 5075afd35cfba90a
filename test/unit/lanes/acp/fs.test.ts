import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, readdirSync, statSync, chmodSync, lstatSync, truncateSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { ConfinedFs, FS_OPS_PER_SESSION, MAX_READ_BYTES } from "../../../../src/lanes/acp/fs.js";
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

test("R-HOSTILE-3: FIFOs, devices, sockets and directories are refused without blocking", async () => {
  const { root, fs } = tree();
  const fifo = path.join(root, "pipe");
  execFileSync("mkfifo", [fifo]);
  symlinkSync("/dev/zero", path.join(root, "zero"));
  const sock = path.join(root, "sock");
  const server = net.createServer().listen(sock);
  await once(server, "listening");
  try {
    const t0 = Date.now();
    await refused(fs.read({ path: fifo }), /is a FIFO/);
    await refused(fs.write({ path: fifo, content: "x" }), /is a FIFO/);
    await refused(fs.read({ path: path.join(root, "zero") }), /is a device/);
    await refused(fs.read({ path: sock }), /is a socket/);
    await refused(fs.write({ path: sock, content: "x" }), /is a socket/);
    await refused(fs.read({ path: path.join(root, "sub") }), /is a directory/);
    await refused(fs.write({ path: path.join(root, "sub"), content: "x" }), /is a directory/);
    assert.ok(Date.now() - t0 < 2000);
    assert.deepEqual(readdirSync(root).filter((n) => n.includes("a4aa")), []);
  } finally {
    server.close();
  }
});

test("R-HOSTILE-2: line and limit are honoured the way a split on newlines would be", async () => {
  const { root, fs } = tree();
  const f = path.join(root, "l.txt");
  for (const text of ["a\nb\n", "one\ntwo\nthree\nfour", "", "\n\n", "x".repeat(3 << 20) + "\ny\nz"]) {
    writeFileSync(f, text);
    const lines = text.split("\n");
    for (const line of [undefined, 1, 2, 3, 4, 9]) {
      for (const limit of [undefined, 0, 1, 2, 3]) {
        const start = (line ?? 1) - 1;
        const want = lines.slice(start, limit === undefined ? lines.length : start + limit).join("\n");
        const got = (await fs.read({ path: f, line, limit })).content;
        assert.equal(got, want, `line ${line} limit ${limit} of ${JSON.stringify(text.slice(0, 20))}`);
      }
    }
  }
});

test(`R-HOSTILE-2: a read returns at most ${MAX_READ_BYTES} bytes; a part of a bigger file can be read`, async () => {
  const { root, fs } = tree();
  const big = path.join(root, "big.log");
  writeFileSync(big, "first\nsecond\n");
  truncateSync(big, 300 * 1024 * 1024);
  await refused(fs.read({ path: big }), /at most 16777216 bytes .*line and limit/);
  assert.equal((await fs.read({ path: big, line: 2, limit: 1 })).content, "second");
  // The third line is ~300 MiB of NULs: refused as soon as the cap is passed, not held.
  await refused(fs.read({ path: big, line: 3, limit: 1 }), /at most 16777216 bytes/);
});

test("R-HOSTILE-3: a write to a symlink inside replaces its target; the temp file is made in the checked directory", async () => {
  const { root, fs } = tree();
  await fs.write({ path: path.join(root, "inner-link"), content: "via link" });
  assert.equal(readFileSync(path.join(root, "a.txt"), "utf8"), "via link");
  assert.ok(lstatSync(path.join(root, "inner-link")).isSymbolicLink());
  assert.deepEqual(readdirSync(root).filter((n) => n.includes("a4aa")), []);
});

test("R-HOSTILE-3: many concurrent operations of one session all complete (queued FS_OPS_PER_SESSION at a time)", async () => {
  const { root, fs } = tree();
  const files = Array.from({ length: 20 }, (_, i) => path.join(root, `f${i}`));
  await Promise.all(files.map((f, i) => fs.write({ path: f, content: String(i) })));
  const got = await Promise.all(files.map((f) => fs.read({ path: f })));
  assert.deepEqual(got.map((g) => g.content), files.map((_, i) => String(i)));
  assert.ok(FS_OPS_PER_SESSION >= 1 && FS_OPS_PER_SESSION < 4);
});
