// Issue 29: a newcomer's first session with the real Claude Code, in a real terminal (tmux),
// as the README tells it: `a4aa doctor` says to export the key; after `export`, `a4aa run
// --agent claude-code` works without --env; a permission answered with a key; Ctrl-C cancels
// a slow turn; a second turn; Ctrl-D ends it; the printed resume command works as printed.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { AGENTS_BIN_DIR, INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { processesWithVar, waitGone } from "../../helpers/procs.js";
import { CLI } from "../../helpers/sidecar.js";
import { TmuxPane, tmuxInstalled } from "../../helpers/tmux.js";

const MINUTE = 60_000;

describe("a newcomer's first hour: doctor → export → a4aa run --agent claude-code → resume", { skip: !tmuxInstalled() ? "tmux is not installed" : agentsInstalled(["claude"]) ? false : INSTALL_HINT }, () => {
  test("the README's path works as printed, with the key only exported", { timeout: 6 * MINUTE }, async () => {
    const chunks = Array.from({ length: 300 }, (_, i) => `part ${i} `);
    const mock = await startMockFor("claude", [reply.shell("touch made-by-run.txt"), reply.text("Tool turn finished."), reply.slow(chunks, 150), reply.text("After the cancel."), reply.text("Resumed as printed.")]);
    const run = prepareAgent("claude", mock);
    const bin = path.join(run.dir, "bin");
    mkdirSync(bin);
    // `a4aa` on PATH, as `npm link` or an installed package gives it.
    writeFileSync(path.join(bin, "a4aa"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
    chmodSync(path.join(bin, "a4aa"), 0o755);
    const pane = new TmuxPane(["bash", "--norc", "--noprofile", "-i"], {
      env: { PATH: [bin, AGENTS_BIN_DIR, path.dirname(process.execPath), "/usr/bin", "/bin"].join(":"), HOME: run.home, TMPDIR: run.env.TMPDIR!, PS1: "$ ", NO_COLOR: "1", TERM: "xterm-256color" },
      cwd: run.cwd,
      cols: 140,
      rows: 45,
    });
    let passed = false;
    try {
      pane.type("a4aa doctor");
      pane.keys("Enter");
      await pane.waitFor(/claude-code[\s\S]*fix: +export ANTHROPIC_API_KEY=… \(a4aa run passes it to the agent/, MINUTE, "doctor's fix for claude-code");
      pane.type(`export ANTHROPIC_API_KEY=${run.env.ANTHROPIC_API_KEY} ANTHROPIC_BASE_URL=${mock.url}`);
      pane.keys("Enter");
      pane.type("a4aa run --agent claude-code");
      pane.keys("Enter");
      await pane.waitFor(/^›\s*$/m, 2 * MINUTE, "the input prompt (the session is open)");
      pane.type("Make the file.");
      pane.keys("Enter");
      await pane.waitFor(/\[y\] [^\n]*\[n\] [^\n]*\[Esc\] cancel/, 2 * MINUTE, "the permission prompt");
      pane.type("y");
      await pane.waitFor(/Tool turn finished\.[\s\S]*── done/, 2 * MINUTE, "the tool turn's end");
      assert.ok(existsSync(path.join(run.cwd, "made-by-run.txt")), "the allowed command ran");
      pane.type("Talk slowly.");
      pane.keys("Enter");
      await pane.waitFor(/part 3 /, 2 * MINUTE, "the slow reply");
      pane.keys("C-c");
      await pane.waitFor(/── cancelled · /, MINUTE, "the cancelled turn");
      assert.doesNotMatch(pane.history(), /permission cancelled by the --permission preset/, "no preset was given");
      pane.type("Still there?");
      pane.keys("Enter");
      await pane.waitFor(/After the cancel\.[\s\S]*── done/, 2 * MINUTE, "a turn after the cancel");
      pane.keys("C-d");
      const ended = await pane.waitFor(/continue it with: (a4aa run [^\n]*--resume \S+)/, MINUTE, "the resume command");
      const resume = /continue it with: (a4aa run [^\n]*--resume \S+)/.exec(ended)![1]!;
      assert.match(resume, /^a4aa run --agent claude-code --resume \S+$/, "as printed: the agent, no --cwd (the same), no key");
      // The resume command, typed exactly as printed (with a prompt: one turn and exit).
      pane.type(`${resume} "One more."`);
      pane.keys("Enter");
      await pane.waitFor(/Resumed as printed\.[\s\S]*── done/, 2 * MINUTE, "the resumed session's turn");
      const last = mock.mainRequests().at(-1)!;
      assert.match(JSON.stringify(last.body), /Still there\?/, "the resumed turn carries the conversation so far");
      passed = true;
    } finally {
      if (!passed || process.env.A4AA_SHOW_TERMINAL) process.stderr.write(`--- the terminal showed:\n${pane.history()}\n`);
      pane.kill();
      await mock.close();
      const left = await waitGone(() => processesWithVar("HOME", run.home), 10_000);
      await run.cleanup();
      if (passed) assert.deepEqual(left, [], "nothing of the session (agent, sidecar, shell) is left");
    }
  });
});
