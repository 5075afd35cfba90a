// R-SANDBOX-1: what each setting puts on bubblewrap's command line, and in which order (a
// later mount covers an earlier one: private /tmp, then the command's folders, then the
// private home, then the writable cwd).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { bwrapArgs, insidePath } from "../../../src/sandbox/bwrap-args.js";
import { commandRoots, installRoot, outermost } from "../../../src/sandbox/roots.js";
import { isLoopback, parseLoopbackEndpoint } from "../../../src/sandbox/relay.js";
import { sandboxAsked, sandboxCapabilities } from "../../../src/sandbox/open.js";
import { findBwrap } from "../../../src/sandbox/support.js";
import { unwrapExit } from "../../../src/supervise/supervised-process.js";
import { tempPrefix } from "../../../src/supervise/temp-files.js";

const dir = mkdtempSync(path.join(tmpdir(), "a4aa-sandbox-unit-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The index of the mount of `at` (its destination) on the command line. */
const mountOf = (args: string[], at: string) => args.findIndex((a, i) => a === at && i > 0 && (args[i - 2] === "--bind" || args[i - 2] === "--ro-bind"));

test("every sandbox: all namespaces, no capability, dies with the sidecar; network only as asked", () => {
  for (const network of ["model", "none", "host"] as const) {
    const args = bwrapArgs({ filesystem: "cwd", network, cwd: "/w/c" });
    for (const f of ["--unshare-all", "--die-with-parent", "--proc"]) assert.ok(args.includes(f), `${network}: ${f}`);
    assert.deepEqual(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2), ["--cap-drop", "ALL"]);
    assert.equal(args.includes("--share-net"), network === "host", network);
  }
});

test('filesystem "cwd": system folders read-only, private /tmp, then the command\'s folders, private home, writable cwd; the root read-only', () => {
  const args = bwrapArgs({
    filesystem: "cwd",
    network: "none",
    cwd: "/work/proj",
    chdir: "/work/proj/sub",
    home: { at: "/scratch/home", from: "/tmp/priv/home" },
    tmp: "/tmp/priv/tmp",
    readOnly: ["/scratch", "/scratch/home/.local/app", "/opt2/agent"],
  });
  assert.ok(!args.includes("/home") && !args.includes("/root"), "no user folder of the host");
  assert.deepEqual(args.slice(args.indexOf("/usr") - 1, args.indexOf("/usr") + 2), ["--ro-bind", "/usr", "/usr"]);
  assert.ok(mountOf(args, "/tmp") < mountOf(args, "/scratch"), "a folder under /tmp shows over the private /tmp");
  assert.ok(mountOf(args, "/scratch") < mountOf(args, "/scratch/home"), "the private home covers the folder that holds HOME");
  assert.ok(mountOf(args, "/scratch/home") < mountOf(args, "/scratch/home/.local/app"), "a program inside HOME shows over the private home");
  assert.ok(mountOf(args, "/opt2/agent") < mountOf(args, "/work/proj"), "the cwd comes last: writable even inside a read-only folder");
  assert.equal(args[mountOf(args, "/work/proj") - 2], "--bind");
  assert.equal(args[mountOf(args, "/scratch/home") - 1], "/tmp/priv/home");
  assert.deepEqual(args.slice(-4), ["--remount-ro", "/", "--chdir", "/work/proj/sub"]);
});

test('filesystem "host": the host as it is, with its own /proc', () => {
  const args = bwrapArgs({ filesystem: "host", network: "none", cwd: "/w/c", extra: [{ from: "/a/launcher.js", at: "/a/launcher.js" }] });
  assert.deepEqual(args.slice(args.indexOf("--bind"), args.indexOf("--bind") + 3), ["--bind", "/", "/"]);
  assert.ok(args.includes("--proc") && !args.includes("--remount-ro"));
  assert.ok(!args.includes("/a/launcher.js"), "a file already where it is shown needs no mount");
  assert.equal(insidePath({ filesystem: "host" }, "/a/launcher.js", "launcher.mjs"), "/a/launcher.js");
  assert.equal(insidePath({ filesystem: "cwd" }, "/a/launcher.js", "launcher.mjs"), "/run/a4aa/launcher.mjs");
});

test("installRoot: above the topmost node_modules, else the nearest package.json, else the file's folder", () => {
  const pkg = path.join(dir, "pkg");
  mkdirSync(path.join(pkg, "dist", "x"), { recursive: true });
  writeFileSync(path.join(pkg, "package.json"), "{}");
  writeFileSync(path.join(pkg, "dist", "x", "agent.js"), "");
  assert.equal(installRoot(path.join(pkg, "dist", "x", "agent.js")), pkg);
  assert.equal(installRoot("/srv/app/node_modules/@s/cli/node_modules/dep/index.js"), "/srv/app");
  const loose = path.join(dir, "loose");
  mkdirSync(loose);
  writeFileSync(path.join(loose, "tool"), "");
  assert.equal(installRoot(path.join(loose, "tool")), loose);
});

test("commandRoots: the program's and a named script's folders (as given and real), a4aa's own temp folders from the environment; never / or a system folder", () => {
  const app = path.join(dir, "app");
  mkdirSync(path.join(app, "lib"), { recursive: true });
  writeFileSync(path.join(app, "package.json"), "{}");
  writeFileSync(path.join(app, "lib", "main.js"), "");
  const bin = path.join(dir, "bin");
  mkdirSync(bin);
  symlinkSync(path.join(app, "lib", "main.js"), path.join(bin, "agent"));
  const temp = mkdtempSync(tempPrefix(dir, "mcp"));
  writeFileSync(path.join(temp, "settings.json"), "{}");
  const stranger = path.join(dir, "stranger");
  mkdirSync(stranger);
  const roots = commandRoots(path.join(bin, "agent"), ["--config", "/", "/usr/bin/env", "relative/x"], { SETTINGS: path.join(temp, "settings.json"), HOME: stranger, OTHER: stranger });
  assert.deepEqual(roots.sort(), [app, bin, temp].sort());
});

test("outermost keeps folders that are not inside another of the list", () => {
  assert.deepEqual(outermost(["/a/b/c", "/a/b", "/a/bc", "/d"]).sort(), ["/a/b", "/a/bc", "/d"]);
});

test("--sandbox-model-endpoint takes loopback addresses only", () => {
  assert.deepEqual(parseLoopbackEndpoint("127.0.0.1:8080"), { host: "127.0.0.1", port: 8080 });
  assert.deepEqual(parseLoopbackEndpoint("[::1]:9"), { host: "::1", port: 9 });
  assert.deepEqual(parseLoopbackEndpoint("localhost:443"), { host: "localhost", port: 443 });
  assert.throws(() => parseLoopbackEndpoint("10.0.0.1:80"), /not a loopback address/);
  assert.throws(() => parseLoopbackEndpoint("api.anthropic.com:443"), /not a loopback address/);
  assert.throws(() => parseLoopbackEndpoint("127.0.0.1"), /expected HOST:PORT/);
  assert.throws(() => parseLoopbackEndpoint("127.0.0.1:70000"), /expected HOST:PORT/);
  assert.ok(isLoopback("127.8.9.10") && !isLoopback("128.0.0.1"));
});

test("options: the schema's defaults; capabilities say what holds", () => {
  assert.equal(sandboxAsked(undefined), undefined);
  assert.deepEqual(sandboxAsked({}), { filesystem: "cwd", network: "model" });
  assert.deepEqual(sandboxAsked({ network: "none" }), { filesystem: "cwd", network: "none" });
  assert.deepEqual(sandboxCapabilities({ available: false, detail: "no bwrap" }, undefined), { available: false, filesystem: "host", network: "host", detail: "no bwrap" });
  assert.deepEqual(sandboxCapabilities({ available: true, bwrap: "/usr/bin/bwrap" }, { filesystem: "cwd", network: "none" }), { available: true, filesystem: "cwd", network: "none" });
});

test("bubblewrap is looked up on PATH, or taken from A4AA_BWRAP", () => {
  const fake = path.join(dir, "fakebin");
  mkdirSync(fake);
  writeFileSync(path.join(fake, "bwrap"), "#!/bin/sh\n", { mode: 0o755 });
  assert.deepEqual(findBwrap({ PATH: `/nonexistent:${fake}` }), { bwrap: path.join(fake, "bwrap") });
  assert.match((findBwrap({ PATH: "/nonexistent" }) as { detail: string }).detail, /not on the sidecar's PATH/);
  assert.match((findBwrap({ PATH: fake, A4AA_BWRAP: "" }) as { detail: string }).detail, /A4AA_BWRAP="" is not an executable file/);
});

test("a sandboxed command killed by signal N: bubblewrap's exit code 128+N is the command's signal again", () => {
  assert.deepEqual(unwrapExit({ code: 143, signal: null }), { code: null, signal: "SIGTERM" });
  assert.deepEqual(unwrapExit({ code: 137, signal: null }), { code: null, signal: "SIGKILL" });
  assert.deepEqual(unwrapExit({ code: 3, signal: null }), { code: 3, signal: null });
  assert.deepEqual(unwrapExit({ code: null, signal: "SIGKILL" }), { code: null, signal: "SIGKILL" });
});
