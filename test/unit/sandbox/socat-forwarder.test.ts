// The shell that runs socat beside the sandboxed command (R-SANDBOX-1 network "model"),
// against a stand-in socat that logs as socat 1.7 does: the command starts only once socat
// says it listens, socat's errors reach stderr, its notices do not, nothing reaches stdout
// (the command's protocol channel) but the command's own output.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SOCAT_FORWARDER } from "../../../src/sandbox/session-sandbox.js";

test("R-SANDBOX-1: the socat forwarder's shell starts the command once socat listens and passes on only its errors", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "a4aa-socat-test-"));
  try {
    const socat = path.join(dir, "socat");
    const args = path.join(dir, "args");
    writeFileSync(
      socat,
      `#!/bin/sh
echo "$@" > ${JSON.stringify(args)}
sleep 0.2
echo "2026/12/05 10:00:00 socat[7] N listening on AF=2 127.0.0.1:4321" >&2
echo "2026/12/05 10:00:01 socat[8] E connect(5, AF=1 \\"/net/model.sock\\", 17): No such file or directory" >&2
echo "2026/12/05 10:00:01 socat[8] N exit(1)" >&2
echo "what socat wrote to its stdout"
`,
      { mode: 0o755 },
    );
    const ready = path.join(dir, "ready-1");
    const r = spawnSync("/bin/sh", ["-c", SOCAT_FORWARDER, socat, "TCP-LISTEN:4321,bind=127.0.0.1,reuseaddr,fork", "UNIX-CONNECT:/net/model.sock", ready, "/bin/sh", "-c", 'test -e "$0" && echo "the forwarder listened before I started"', ready], {
      encoding: "utf8",
      timeout: 10_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, "the forwarder listened before I started\n", "stdout holds the command's output alone");
    // spawnSync returned once every writer of stderr was gone: socat's log was read to its end.
    assert.match(r.stderr, /^a4aa sandbox: model forwarder: .* E connect\(5, AF=1 "\/net\/model\.sock", 17\): No such file or directory$/m);
    assert.doesNotMatch(r.stderr, / N (listening|exit)/, "notices stay out of the agent's stderr");
    assert.equal(spawnSync("cat", [args], { encoding: "utf8" }).stdout, "-d -d TCP-LISTEN:4321,bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:/net/model.sock\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
