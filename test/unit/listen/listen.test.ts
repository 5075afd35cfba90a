// §15 listener pieces: --listen addresses, the token file, the outbound bound.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { isLoopback, parseListenAddress } from "../../../src/listen/address.js";
import { bearerToken, loadTokenFile } from "../../../src/listen/auth.js";
import { boundedOutput } from "../../../src/listen/outbound.js";
import { scratchDir } from "../../helpers/tmp.js";

test("R-REMOTE-1: --listen takes ws://HOST:PORT[/PATH], wss://… and unix:PATH, and says what is wrong otherwise", () => {
  assert.deepEqual(parseListenAddress("ws://127.0.0.1:7700/a4aa"), { kind: "ws", host: "127.0.0.1", port: 7700, path: "/a4aa", text: "ws://127.0.0.1:7700/a4aa" });
  assert.equal(parseListenAddress("wss://[::1]:443").kind, "wss");
  assert.equal((parseListenAddress("wss://[::1]:443") as { host: string }).host, "::1");
  assert.deepEqual(parseListenAddress("unix:/run/a4aa.sock"), { kind: "unix", path: "/run/a4aa.sock", text: "unix:/run/a4aa.sock" });
  assert.throws(() => parseListenAddress("http://127.0.0.1:80"), /scheme must be ws, wss or unix/);
  assert.throws(() => parseListenAddress("ws://127.0.0.1"), /name the port/);
  assert.throws(() => parseListenAddress("ws://u:secret@127.0.0.1:1"), /tokens go in --auth-token-file/);
  assert.throws(() => parseListenAddress("unix:"), /needs a path/);
});

test("R-REMOTE-2: loopback is 127.0.0.0/8, ::1 and localhost; 0.0.0.0 and names are not", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "::1", "localhost", "::ffff:127.0.0.1"]) assert.ok(isLoopback(h), h);
  for (const h of ["0.0.0.0", "::", "10.0.0.1", "example.com", "192.168.1.1"]) assert.ok(!isLoopback(h), h);
});

test("R-REMOTE-2: the token file maps bearer tokens to tenants; malformed lines are named without their token", () => {
  const dir = scratchDir("a4aa-tokens");
  const file = path.join(dir, "t");
  writeFileSync(file, "# comment\n\nalice:aaaaaaaaaaaaaaaaaaaa\nbob:bbbbbbbbbbbbbbbbbbbbbbbb\n");
  const t = loadTokenFile(file);
  assert.equal(t.size, 2);
  assert.equal(t.tenantOf("aaaaaaaaaaaaaaaaaaaa"), "alice");
  assert.equal(t.tenantOf("bbbbbbbbbbbbbbbbbbbbbbbb"), "bob");
  assert.equal(t.tenantOf("aaaaaaaaaaaaaaaaaaa"), undefined);
  assert.equal(t.tenantOf(""), undefined);
  writeFileSync(file, "alice:aaaaaaaaaaaaaaaaaaaa\nbroken-short-secret-token\n");
  assert.throws(
    () => loadTokenFile(file),
    (e: Error) => /line 2: expected NAME:TOKEN/.test(e.message) && !e.message.includes("broken-short-secret-token"),
  );
  writeFileSync(file, "# nothing\n");
  assert.throws(() => loadTokenFile(file), /holds no NAME:TOKEN line/);
  assert.equal(bearerToken("Bearer abc"), "abc");
  assert.equal(bearerToken("bearer  abc "), "abc");
  assert.equal(bearerToken("Basic abc"), undefined);
  assert.equal(bearerToken(undefined), undefined);
});

test("R-REMOTE-1: on a WebSocket each NDJSON line becomes one frame, also when written in pieces or batched", async () => {
  const frames: string[] = [];
  const out = boundedOutput({ send: (t) => frames.push(t), pending: () => 0, slow: () => assert.fail("not slow") }, 1024, true);
  out.write('{"a":1}\n{"b":2}\n{"c"');
  out.write(':3');
  out.write('}\n');
  await new Promise((r) => out.end(r));
  assert.deepEqual(frames, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

test("R-REMOTE-7: past its bound for the grace period a connection is slow; a brief excess (one big message) is not", async () => {
  let pending = 0;
  let slow = 0;
  const out = boundedOutput({ send: () => undefined, pending: () => pending, slow: () => slow++ }, 100, false, 50);
  pending = 500;
  out.write("x");
  pending = 0; // drained within the grace period
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(slow, 0);
  pending = 500;
  out.write("y");
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(slow, 1);
  out.write("z");
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(slow, 1, "closed once");
});
