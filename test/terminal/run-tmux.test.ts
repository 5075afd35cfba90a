// `a4aa run` as a person uses it, in a real terminal (tmux): the bundled example agent
// through a real `a4aa serve`, keys typed, the screen read back (spec §9 `a4aa run`).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLI, exampleAgentSpec, killMarked, newMarker, waitNoProcesses } from "../helpers/sidecar.js";
import { TmuxPane, tmuxInstalled } from "../helpers/tmux.js";
import { scratchDir } from "../helpers/tmp.js";

const T = { timeout: 60_000 };

function pane(args: string[], marker: string, opts: { cols?: number; rows?: number; env?: Record<string, string> } = {}): TmuxPane {
  // The marker also tags `a4aa run` and its sidecar, so the runner sees any of them left over.
  return new TmuxPane([process.execPath, CLI, "run", ...args], { cols: opts.cols, rows: opts.rows, cwd: scratchDir("a4aa-run-tmux"), env: { A4AA_TEST_MARKER: marker, ...opts.env } });
}

async function finish(p: TmuxPane, marker: string, passed: boolean): Promise<void> {
  try {
    if (!passed) return;
    const left = await waitNoProcesses(marker, 5000);
    const cmd = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "latin1").replace(/\0/g, " ");
      } catch {
        return "(gone)";
      }
    };
    assert.deepEqual(left.map(cmd), [], "no agent, sidecar or client process is left");
  } finally {
    p.kill();
    killMarked(marker);
  }
}

// tmux is a prerequisite of the suite (CI installs it): without it this fails, it does not skip.
test("tmux is installed (a4aa run is tested in a real terminal)", () => {
  assert.ok(tmuxInstalled(), "tmux is not installed: install it (apt-get install tmux) to test a4aa run in a terminal");
});

describe("a4aa run in a terminal (example agent)", { skip: tmuxInstalled() ? false : "tmux is not installed (see the failing test above)" }, () => {
  test("a permission answered with a key, a slow turn cancelled with Ctrl-C, the session goes on, Ctrl-D ends it", T, async () => {
    const marker = newMarker();
    let passed = false;
    const p = pane(["--spec", JSON.stringify(exampleAgentSpec(marker))], marker);
    try {
      await p.waitFor(/a4aa example agent 1\.0\.0 · acp lane · session \S+ · mode default/);
      await p.waitFor(/^›\s*$/m, 10_000, "the input prompt");
      p.type("check the shell");
      p.keys("Enter");
      const asked = await p.waitFor(/\[y\] Allow {2}\[a\] Always allow {2}\[n\] Reject {2}\[Esc\] cancel/, 15_000, "the permission prompt");
      assert.match(asked, /\? Allow Run `echo hello` \(execute\)\n {4}echo hello/, "the tool, its kind and its content");
      assert.match(asked, /plan\n {2}\[~\] Read the README\n {2}\[ \] Run a command/, "the plan as a checklist");
      p.type("y");
      const done = await p.waitFor(/── done · .*\$0\.0004/, 15_000, "the end of the turn with its usage line");
      assert.match(done, /\? Run `echo hello` \(execute\) → Allow \(you\)/);
      assert.match(done, /✓ done Run `echo hello` \(execute\) — hello/);
      assert.match(done, /The shell works \(it printed hello\)/);
      assert.doesNotMatch(done, /thinking…|writing…|working…/, "no spinner is left on the screen");

      p.type("/slow 200");
      p.keys("Enter");
      await p.waitFor(/chunk 3 /, 15_000);
      p.keys("C-c");
      await p.waitFor(/── cancelled · /, 10_000, "the cancelled turn");
      p.type("/echo still here");
      p.keys("Enter");
      const after = await p.waitFor(/still here\n── done/, 15_000, "a turn after the cancel");
      assert.doesNotMatch(after, /chunk 200/, "the slow turn was cut short");

      p.keys("C-d");
      assert.equal(await p.exitCode(), 0);
      assert.match(p.history(), /session ended; continue it with: a4aa run --spec … --resume example-\d+-1/);
      passed = true;
    } finally {
      await finish(p, marker, passed);
    }
  });

  test("issue 29: on a narrow terminal the permission's choices move to the next row whole, never cut mid-word", T, async () => {
    const marker = newMarker();
    let passed = false;
    const p = pane(["--spec", JSON.stringify(exampleAgentSpec(marker))], marker, { cols: 26, rows: 30, env: { NO_COLOR: "1" } });
    try {
      await p.waitFor(/^›\s*$/m, 10_000, "the input prompt");
      p.type("check the shell");
      p.keys("Enter");
      const asked = await p.waitFor(/\[Esc\] cancel/, 15_000, "the permission prompt");
      for (const choice of ["[y] Allow", "[a] Always allow", "[n] Reject", "[Esc] cancel"]) assert.ok(asked.split("\n").some((l) => l.includes(choice)), `"${choice}" whole on one row:\n${asked}`);
      
      p.type("y");
      await p.waitFor(/── done/, 15_000, "the end of the turn");
      p.keys("C-d");
      assert.equal(await p.exitCode(), 0);
      passed = true;
    } finally {
      await finish(p, marker, passed);
    }
  });

  test("the default agent: /mode and /model change the next turns, a resize mid-turn garbles nothing, two Ctrl-C end it", T, async () => {
    const marker = newMarker();
    let passed = false;
    const p = pane(["--env", `A4AA_TEST_MARKER=${marker}`], marker, { cols: 60, rows: 20, env: { NO_COLOR: "1" } });
    try {
      await p.waitFor(/^›\s*$/m, 10_000, "the input prompt");
      p.type("/mode");
      p.keys("Enter");
      await p.waitFor(/mode: default \(offered: default, plan\)/);
      p.type("/mode plan");
      p.keys("Enter");
      await p.waitFor(/mode is now plan \(session \S+,\s+the same\s+conversation\)/);
      p.type("/model example-large");
      p.keys("Enter");
      await p.waitFor(/the next turns use model example-large/);
      p.type("plan only");
      p.keys("Enter");
      const planned = await p.waitFor(/In plan mode I ran nothing\.[\s\S]*── done/, 15_000);
      assert.match(planned.replace(/\n/g, " "), /model example-large/);

      p.type("/slow 40");
      p.keys("Enter");
      await p.waitFor(/chunk 5 /, 15_000);
      p.type("/echo typed ahead");
      p.keys("Enter");
      await p.waitFor(/queued for after this turn: \/echo typed ahead/);
      p.resize(34, 20);
      await new Promise((r) => setTimeout(r, 500));
      p.resize(80, 20);
      const slow = await p.waitFor(/chunk 40\s*\n── done/, 20_000);
      const words = slow.slice(slow.indexOf("/slow 40")).replace(/queued for after this turn: \/echo typed ahead/, "").replace(/\s+/g, " ");
      const expected = Array.from({ length: 40 }, (_, i) => `chunk ${i + 1}`).join(" ");
      assert.ok(words.includes(expected), `every chunk once, in order, nothing else between them:\n${slow}`);
      // Up to the slow turn's end: the queued turn may already be running (its own spinner) when the screen is read.
      const slowTurn = slow.slice(0, slow.indexOf("── done", slow.indexOf("chunk 40")));
      assert.doesNotMatch(slowTurn, /writing…|thinking…/, "no spinner line is left behind by the resize");
      await p.waitFor(/── done[^\n]*\ntyped ahead\n── done/, 15_000, "the prompt typed during the turn, sent after it");
      assert.doesNotMatch(p.tmuxScreenWithEscapes(), /\x1b\[[0-9;]*m/, "NO_COLOR: no colours");

      p.type("/slow 200");
      p.keys("Enter");
      await p.waitFor(/chunk 3 [\s\S]*writing…/, 15_000);
      p.type("/cancel");
      p.keys("Enter");
      await p.waitFor(/chunk 3 [\s\S]*── cancelled · /, 10_000, "the turn cancelled by /cancel");
      p.type("/help");
      p.keys("Enter");
      await p.waitFor(/\/exit {9}end the session \(also Ctrl-D at the prompt;\s+an\s+attached\s+one\s+is\s+left\s+running\)/);
      // Ctrl-C at the input prompt (not while the help is still being drawn).
      await p.waitFor(/goes to the agent as a prompt\.\n›\s*$/m, 10_000, "the input prompt after the help");

      p.keys("C-c");
      await p.waitFor(/press Ctrl-C again, or Ctrl-D, to end the session/);
      p.keys("C-c");
      assert.equal(await p.exitCode(), 0);
      passed = true;
    } finally {
      await finish(p, marker, passed);
    }
  });
  test("a fast double Ctrl-C during a turn (both in one read) cancels it and ends the session; nothing is left", T, async () => {
    const marker = newMarker();
    let passed = false;
    const p = pane(["--env", `A4AA_TEST_MARKER=${marker}`], marker, { cols: 80, rows: 20, env: { NO_COLOR: "1" } });
    try {
      await p.waitFor(/^›\s*$/m, 10_000, "the input prompt");
      p.type("/slow 200");
      p.keys("Enter");
      await p.waitFor(/chunk 3 /, 15_000);
      p.keys("C-c", "C-c");
      const code = await p.exitCode(15_000);
      assert.ok(code === 130 || code === 0, `exit ${code}`);
      assert.match(p.history(), /ending the session/);
      passed = true;
    } finally {
      await finish(p, marker, passed);
    }
  });

  test("R-CONTENT-1: /attach FILE sends an image with the next prompt only; a missing file is said, and the session goes on", T, async () => {
    const marker = newMarker();
    let passed = false;
    const dir = scratchDir("a4aa-run-tmux-attach");
    writeFileSync(path.join(dir, "shot.png"), Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64"));
    const p = new TmuxPane([process.execPath, CLI, "run", "--spec", JSON.stringify(exampleAgentSpec(marker))], { cwd: dir, env: { A4AA_TEST_MARKER: marker } });
    try {
      await p.waitFor(/^›\s*$/m, 15_000, "the input prompt");
      p.type("/attach nope.png");
      p.keys("Enter");
      await p.waitFor(/cannot attach nope\.png: no such file/, 10_000, "the missing file said");
      p.type("/attach shot.png");
      p.keys("Enter");
      await p.waitFor(/attached to the next prompt: shot\.png \(image\/png, 68 bytes\)/, 10_000);
      p.type("/echo look");
      p.keys("Enter");
      const first = await p.waitFor(/I received an image \(image\/png, 68 bytes\)\. look[\s\S]*── done/, 15_000, "the turn with the image");
      assert.match(first, /attached: shot\.png \(image\/png, 68 bytes\)/);
      p.type("/echo again");
      p.keys("Enter");
      const second = await p.waitFor(/^again\n── done/m, 15_000, "the next turn, without the image");
      assert.equal((second.match(/I received an image/g) ?? []).length, 1, "the image went with one prompt only");
      p.keys("C-d");
      await p.waitFor(/\[exit 0\]/, 15_000);
      passed = true;
    } finally {
      await finish(p, marker, passed);
    }
  });
});
