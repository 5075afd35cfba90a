// `a4aa run` driving a real agent against its loopback model mock, in a real terminal (tmux),
// as a person would: a shell command's permission answered with a key, a slow reply cancelled
// with Ctrl-C, another turn after it, Ctrl-D to end; nothing of the agent is left.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor, type AgentName } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { CLI, killMarked, newMarker, waitNoProcesses } from "../../helpers/sidecar.js";
import { TmuxPane, tmuxInstalled } from "../../helpers/tmux.js";

export interface RunSuiteOptions {
  lane: "acp" | "cli";
  driver?: string;
  /** Extra `a4aa run` flags (e.g. the model, to skip a router). */
  args?: string[];
}

const TOOL = "touch made-by-run.txt";
const MINUTE = 60_000;

export function realRunSuite(agent: AgentName, opts: RunSuiteOptions): void {
  const skip = !tmuxInstalled() ? "tmux is not installed" : agentsInstalled([agent]) ? false : INSTALL_HINT;
  describe(`a4aa run in a terminal, real ${agent} (${opts.lane} lane)`, { skip }, () => {
    test("a permission answered with a key, Ctrl-C cancels a slow turn, the next turn works, Ctrl-D ends it (R-PERM-1, R-CANCEL-1)", { timeout: 8 * MINUTE }, async () => {
      const chunks = Array.from({ length: 300 }, (_, i) => `part ${i} `);
      const mock = await startMockFor(agent, [reply.shell(TOOL), reply.text("Tool turn finished."), reply.slow(chunks, 150), reply.text("After the cancel.")]);
      const run = prepareAgent(agent, mock);
      const marker = newMarker();
      const command = run.command();
      const env = command.env as { policy: "sanitized"; inherit?: string[]; set?: Record<string, string> };
      const spec = { id: agent, lane: opts.lane, ...(opts.driver ? { driver: opts.driver } : {}), command: { ...command, env: { ...env, set: { ...env.set, A4AA_TEST_MARKER: marker } } } };
      const pane = new TmuxPane([process.execPath, CLI, "run", "--spec", JSON.stringify(spec), "--cwd", run.cwd, ...(opts.args ?? [])], {
        env: { A4AA_TEST_MARKER: marker },
        cols: 110,
        rows: 40,
      });
      let passed = false;
      try {
        await pane.waitFor(/^›\s*$/m, 2 * MINUTE, "the input prompt (the session is open)");
        pane.type("Make the file.");
        pane.keys("Enter");
        const asked = await pane.waitFor(/\[y\] [^\n]*\[n\] [^\n]*\[Esc\] cancel/, 2 * MINUTE, "the permission prompt");
        assert.match(asked, /\? Allow .*\((execute|other)\)/, "the tool and its kind");
        assert.ok(!existsSync(path.join(run.cwd, "made-by-run.txt")), "nothing ran before the answer");
        pane.type("y");
        await pane.waitFor(/Tool turn finished\.[\s\S]*── done/, 2 * MINUTE, "the end of the tool turn");
        assert.match(pane.history(), /→ .+ \(you\)/, "the answer is shown");
        assert.ok(existsSync(path.join(run.cwd, "made-by-run.txt")), "the allowed command ran");

        pane.type("Talk slowly.");
        pane.keys("Enter");
        await pane.waitFor(/part 3 /, 2 * MINUTE, "the slow reply streaming");
        pane.keys("C-c");
        await pane.waitFor(/── cancelled · /, MINUTE, "the cancelled turn");
        assert.doesNotMatch(pane.history(), /part 299/, "the slow reply was cut short");
        assert.doesNotMatch(pane.history(), /Request interrupted/, "the agent's own note of the cancel is not shown as if typed");

        pane.type("Still there?");
        pane.keys("Enter");
        await pane.waitFor(/After the cancel\.[\s\S]*── done/, 2 * MINUTE, "a turn after the cancel");
        pane.keys("C-d");
        assert.equal(await pane.exitCode(MINUTE), 0, pane.screen());
        assert.deepEqual(await waitNoProcesses(marker, 10_000), [], "no agent process is left");
        passed = true;
      } finally {
        if (!passed || process.env.A4AA_SHOW_TERMINAL) process.stderr.write(`--- the terminal showed:\n${pane.history()}\n`);
        pane.kill();
        killMarked(marker);
        await mock.close();
        await run.cleanup();
      }
    });
  });
}
