// The `a4aa` command line (spec §9) and the demo, as a user runs them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { execa } from "execa";
import { CLI, TestSidecar } from "../helpers/sidecar.js";

const a4aa = (...args: string[]) => execa(process.execPath, [CLI, ...args], { reject: false, timeout: 60_000 });
const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };

test("--help, --version and serve --help answer and exit 0", async () => {
  const help = await a4aa("--help");
  assert.equal(help.exitCode, 0);
  assert.match(help.stdout, /a4aa serve \[options\]/);
  const version = await a4aa("--version");
  assert.equal(version.stdout.trim(), pkg.version);
  const serveHelp = await a4aa("serve", "--help");
  assert.equal(serveHelp.exitCode, 0);
  assert.match(serveHelp.stdout, /--trust-host-env/);
  assert.match(serveHelp.stdout, /--permission-timeout MS/);
});

test("an unknown flag or command is a clear error and exit 2", async () => {
  for (const args of [["serve", "--bogus"], ["--bogus"], ["frobnicate"], ["serve", "--log-level", "loud"], ["serve", "--permission-timeout", "soon"]]) {
    const r = await a4aa(...args);
    assert.equal(r.exitCode, 2, args.join(" "));
    assert.match(r.stderr, /^a4aa: .+ Run 'a4aa .*--help' for usage\.$/m);
    assert.equal(r.stdout, "");
  }
});

test("a4aa schema prints the same document rpc.discover answers", async () => {
  const printed = JSON.parse((await a4aa("schema")).stdout);
  const s = new TestSidecar();
  const discovered = await s.ok("rpc.discover");
  assert.deepEqual(discovered, printed);
  assert.equal(printed.openrpc, "1.3.2");
  assert.equal(await s.end(), 0);
});

test("ping answers the protocol, the package version and the schema version", async () => {
  const s = new TestSidecar();
  const schemaVersion = (JSON.parse(readFileSync(new URL("../../../schema/a4aa.v1.openrpc.json", import.meta.url), "utf8")) as { info: { version: string } }).info.version;
  assert.deepEqual(await s.ok("ping"), { protocol: "a4aa.v1", version: pkg.version, schemaVersion });
  assert.deepEqual(await s.ok("ping", {}), { protocol: "a4aa.v1", version: pkg.version, schemaVersion });
  assert.equal((await s.call("ping", { extra: 1 })).error!.data.code, "invalid_params");
  assert.equal(await s.end(), 0);
});

test("a4aa demo drives the example agent end to end and exits 0", async () => {
  const r = await a4aa("demo");
  assert.equal(r.exitCode, 0, r.stderr);
  // Printed by the renderer `a4aa run` uses (src/cli/run/renderer.ts).
  assert.match(r.stdout, /\? Run `echo hello` \(execute\) → Allow \(the demo host answers/);
  assert.match(r.stdout, /✓ done Run `echo hello` \(execute\) — hello/);
  assert.match(r.stdout, /── done · /);
  assert.match(r.stdout, /exited 0/);
  const denied = await a4aa("demo", "--deny", "--prompt", "be careful");
  assert.match(denied.stdout, /✗ failed Run `echo hello` \(execute\) — not run/);
});
