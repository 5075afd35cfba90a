// A newcomer's credentials path with the real Claude Code (issue 29 item 1): `a4aa doctor`
// says "export ANTHROPIC_API_KEY=…"; after that, `a4aa run --agent claude-code` must work —
// the agent's *declared* credential variables pass from run's own environment (nothing
// undeclared), `--env NAME` takes a value from the shell, and a missing key is explained in
// run's own words (auth_required, the variable to export).
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { execa } from "execa";
import { AGENTS_BIN_DIR, INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { CLI, killMarked, newMarker, waitNoProcesses } from "../../helpers/sidecar.js";

const MINUTE = 60_000;

describe("a4aa run --agent claude-code with the key in the shell (real Claude Code)", { skip: agentsInstalled(["claude"]) ? false : INSTALL_HINT }, () => {
  async function runWith(shell: Record<string, string>, args: string[], replies = [reply.text("Hello from the mock.")]) {
    const mock = await startMockFor("claude", replies);
    const agent = prepareAgent("claude", mock);
    const marker = newMarker();
    try {
      const env: Record<string, string> = {
        PATH: `${AGENTS_BIN_DIR}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}/usr/bin:/bin`,
        HOME: agent.home,
        TMPDIR: agent.env.TMPDIR!,
        A4AA_TEST_MARKER: marker,
        NO_COLOR: "1",
        ...shell,
      };
      for (const k of Object.keys(env)) if (env[k] === "<mock>") env[k] = mock.url;
      const r = await execa(process.execPath, [CLI, "run", "--agent", "claude-code", "--cwd", agent.cwd, ...args], {
        reject: false,
        timeout: 3 * MINUTE,
        input: "",
        env,
        extendEnv: false,
      });
      return { r, mock: mock.requests.filter((q) => q.role === "main"), leftover: await waitNoProcesses(marker, 10_000) };
    } finally {
      killMarked(marker);
      await mock.close();
      await agent.cleanup();
    }
  }

  test("the exported key and base URL reach the agent without --env; the reply streams; nothing is left", { timeout: 4 * MINUTE }, async () => {
    const { r, mock, leftover } = await runWith({ ANTHROPIC_API_KEY: "sk-ant-from-the-shell", ANTHROPIC_BASE_URL: "<mock>", NOT_DECLARED_SECRET: "s3cret" }, ["say hello"]);
    assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /Hello from the mock\./);
    assert.ok(mock.length >= 1, "the model API was asked");
    assert.equal(mock[0]!.headers["x-api-key"], "<redacted>", "the key was sent (the mock redacts it in its record)");
    assert.deepEqual(leftover, []);
  });

  test("--env NAME takes the value from the shell (kept out of argv)", { timeout: 4 * MINUTE }, async () => {
    const { r } = await runWith({ MY_KEY_HOLDER: "unused", ANTHROPIC_API_KEY: "sk-ant-from-the-shell", ANTHROPIC_BASE_URL: "<mock>" }, ["--env", "ANTHROPIC_API_KEY", "say hello"]);
    assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /Hello from the mock\./);
  });

  test("no key: auth_required in run's words, naming the variable to export (not protocol fields)", { timeout: 4 * MINUTE }, async () => {
    const { r, mock } = await runWith({ ANTHROPIC_BASE_URL: "<mock>" }, ["say hello"]);
    assert.equal(r.exitCode, 1, `${r.stdout}\n${r.stderr}`);
    assert.equal(mock.length, 0, "the model was never asked");
    const out = `${r.stdout}\n${r.stderr}`;
    assert.match(out, /export ANTHROPIC_API_KEY=…/, out);
    assert.match(out, /--env ANTHROPIC_API_KEY=VALUE/, out);
    assert.doesNotMatch(out, /command\.env\.set|session\/open env/, "no protocol words");
  });
});

test("--env NAME that the shell does not set is a usage error naming the fix (exit 2)", async () => {
  const r = await execa(process.execPath, [CLI, "run", "--env", "A4AA_SURELY_UNSET_VAR", "hi"], { reject: false, timeout: MINUTE, env: { A4AA_SURELY_UNSET_VAR: undefined } });
  assert.equal(r.exitCode, 2, r.stderr);
  assert.match(r.stderr, /A4AA_SURELY_UNSET_VAR is not set in this shell; export A4AA_SURELY_UNSET_VAR=… first, or give --env A4AA_SURELY_UNSET_VAR=VALUE/);
});
