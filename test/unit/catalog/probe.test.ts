// Version probing: parsing what --version prints, and the time bound.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseVersion, probeVersion } from "../../../src/catalog/probe.js";
import { scratchDir } from "../../helpers/tmp.js";

test("parseVersion takes the first version-looking word", () => {
  assert.equal(parseVersion("2.1.197 (Claude Code)"), "2.1.197");
  assert.equal(parseVersion("codex-cli 0.171.0\n"), "0.171.0");
  assert.equal(parseVersion("@agentclientprotocol/codex-acp 2.6.0"), "2.6.0");
  assert.equal(parseVersion("v1.0.0-beta.2"), "1.0.0-beta.2");
  assert.equal(parseVersion("no version here"), undefined);
});

test("a program that hangs on --version is stopped at the bound, with no version", async () => {
  const d = scratchDir("a4aa-probe");
  const f = path.join(d, "slow");
  writeFileSync(f, "#!/bin/sh\nsleep 30\n");
  chmodSync(f, 0o755);
  const t0 = Date.now();
  assert.equal(await probeVersion(f, ["--version"], { PATH: "/usr/bin:/bin" }, 300), undefined);
  assert.ok(Date.now() - t0 < 4000, `bounded (${Date.now() - t0} ms)`);
  const g = path.join(d, "stderr");
  writeFileSync(g, "#!/bin/sh\necho 'tool 3.4.5' >&2\n");
  chmodSync(g, 0o755);
  assert.equal(await probeVersion(g, ["--version"], { PATH: "/usr/bin:/bin" }), "3.4.5", "read from stderr too");
});
