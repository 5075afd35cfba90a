// `a4aa run --connect URL` as a person uses it (issue 25, R-REMOTE-3/4 through run): a sidecar
// listening on loopback with a token; one terminal opens a session and starts a slow turn,
// then its terminal is closed mid-turn; another terminal attaches to the running session with
// --session, sees the conversation so far and the rest of the turn live, runs a turn of its
// own with a permission, and leaves it running with Ctrl-D; the session is still there.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { CLI, exampleAgentSpec, killMarked, newMarker, waitNoProcesses } from "../helpers/sidecar.js";
import { TmuxPane, tmuxInstalled } from "../helpers/tmux.js";
import { scratchDir } from "../helpers/tmp.js";
import { ListeningSidecar, WsHost } from "../integration/remote/setup.js";

const TOKEN = "run-connect-token-0123456789";

async function sessionsList(url: string): Promise<{ sessionId: string; state: string; attached: number }[]> {
  const h = await WsHost.connect(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  try {
    return (await h.request("sessions/list", {})).sessions;
  } finally {
    h.ws.close();
  }
}

describe("a4aa run --connect (tmux)", { skip: tmuxInstalled() ? false : "tmux is not installed (run-tmux.test.ts fails for it)" }, () => {
  const dir = scratchDir("a4aa-run-connect");
  writeFileSync(path.join(dir, "tokens"), `alice:${TOKEN}\n`, { mode: 0o600 });
  const tokenFile = path.join(dir, "token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const marker = newMarker();
  const sidecar = new ListeningSidecar(["--listen", "ws://127.0.0.1:0", "--auth-token-file", path.join(dir, "tokens")], { ...process.env, A4AA_TEST_MARKER: marker });
  const panes: TmuxPane[] = [];
  const pane = (args: string[], cols = 90) => {
    const p = new TmuxPane([process.execPath, CLI, "run", ...args], { cols, rows: 40, cwd: dir, env: { A4AA_TEST_MARKER: marker, NO_COLOR: "1" } });
    panes.push(p);
    return p;
  };
  after(async () => {
    for (const p of panes) p.kill();
    sidecar.kill();
    await sidecar.exited;
    killMarked(marker);
  });

  test("R-REMOTE-4: a terminal closed mid-turn loses nothing: another attaches with --session, sees the turn so far and the rest live, prompts, and leaves it running", { timeout: 90_000 }, async () => {
    const url = await sidecar.url();
    const spec = JSON.stringify(exampleAgentSpec(marker));
    const a = pane(["--connect", url, "--token-file", tokenFile, "--spec", spec]);
    const opened = await a.waitFor(/session (\S+-\d+) · mode default/, 15_000, "the session line");
    const sid = /session (\S+-\d+) · mode default/.exec(opened)![1]!;
    await a.waitFor(/^›\s*$/m, 10_000, "the input prompt");
    a.type("/slow 60");
    a.keys("Enter");
    await a.waitFor(/chunk 5 /, 15_000);
    // The person's terminal goes away mid-turn: the session is detached, the turn goes on.
    a.kill();
    const [listed] = await sessionsList(url);
    assert.equal(listed?.sessionId, sid);

    const b = pane(["--connect", url, "--token-file", tokenFile, "--session", sid]);
    // The renderer wraps its notes at the terminal's width: words apart by any space.
    await b.waitFor(new RegExp(`attached to session ${sid} \\(example,\\s+in\\s+${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")};\\s+0\\s+other\\s+hosts\\s+attached\\);\\s+a\\s+turn\\s+is\\s+running`), 15_000, "the attach line");
    const whole = await b.waitFor(/chunk 60\b/, 20_000, "the turn's last chunk, live");
    const words = whole.replace(/\s+/g, " ");
    const expected = Array.from({ length: 60 }, (_, i) => `chunk ${i + 1}`).join(" ");
    assert.ok(words.includes(expected), `every chunk once, in order — the ones before the attach and the live ones:\n${whole}`);

    await b.waitFor(/^›\s*$/m, 10_000, "the input prompt");
    b.type("check the shell");
    b.keys("Enter");
    await b.waitFor(/\[y\] Allow/, 15_000, "the permission, asked in the attached terminal");
    b.type("y");
    await b.waitFor(/The shell works \(it printed hello\)[\s\S]*── done/, 15_000, "its own turn");
    b.keys("C-d");
    assert.equal(await b.exitCode(), 0);
    assert.ok(b.history().replace(/\s+/g, " ").includes(`left session ${sid} running; come back with: a4aa run --connect ${url} --session ${sid}`), b.history());
    const [still] = await sessionsList(url);
    assert.deepEqual([still?.sessionId, still?.state, still?.attached], [sid, "idle", 0], "the session goes on, nobody attached");
  });

  test("--connect with a wrong token fails at once, saying which flag gives the right one; nothing is opened", { timeout: 30_000 }, async () => {
    const url = await sidecar.url();
    const bad = path.join(dir, "bad-token");
    writeFileSync(bad, "not-the-token-0123456789\n");
    const p = pane(["--connect", url, "--token-file", bad, "hello"]);
    assert.equal(await p.exitCode(), 1);
    assert.match(p.history().replace(/\s+/g, " "), /refused the token \(HTTP 401\).* fix: the sidecar refused the token: give the TOKEN of one NAME:TOKEN line of its --auth-token-file with --token-file FILE or A4AA_TOKEN/);
  });

  test("nothing of the test is left: the sidecar's sessions end with it", { timeout: 30_000 }, async () => {
    for (const p of panes) p.kill();
    await sidecar.stop();
    assert.deepEqual(await waitNoProcesses(marker, 10_000), []);
  });
});
