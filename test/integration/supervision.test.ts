// Supervision you can prove (a4aa.v1 §8): R-SUP-3 (a tree is ended when its main process
// exits), R-SUP-4 (nothing outlives a SIGKILLed sidecar by more than 5 s), R-SUP-5
// (descendants that left the group are ended at close, crash and shutdown), R-SUP-6 (close
// counts). Real sidecars, real agents; every assertion is made from /proc.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { AgentSpec } from "../../generated/ts/types.js";
import { TestSidecar, sidecarSetup, fakeAgentSpec, processesWithMarker, waitNoProcesses } from "../helpers/sidecar.js";

const TERMINALS = { clientCapabilities: { terminal: true } } as Partial<AgentSpec>;
const TREE_CLI = fileURLToPath(new URL("../fixtures/supervise/tree-cli.js", import.meta.url));

const setup = sidecarSetup();

function cliSpec(marker: string, extra: Record<string, unknown> = {}): AgentSpec {
  return {
    id: "tree-cli",
    lane: "cli",
    driver: "generic",
    command: { program: process.execPath, args: [TREE_CLI], env: { policy: "sanitized", inherit: ["PATH", "HOME"], set: { A4AA_TEST_MARKER: marker } } },
    ...extra,
  } as AgentSpec;
}

function alive(pid: number): boolean {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = st.charAt(st.lastIndexOf(")") + 2);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

async function waitDead(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return !alive(pid);
}

/** The number after `word ` in the session's message text. */
function pidIn(text: string, word: string): number {
  const m = new RegExp(`${word} (\\d+)`).exec(text);
  assert.ok(m, `no "${word} <pid>" in ${JSON.stringify(text)}`);
  return Number(m[1]);
}

const chunks = (s: TestSidecar, sid: string) =>
  s
    .events(sid)
    .filter((e) => e.type === "messageChunk")
    .map((e) => (e as { text: string }).text)
    .join("");

describe("R-SUP-3: when the main process exits, what is left of its group is ended without a close", () => {
  test("R-SUP-3: an ACP agent that crashes after starting a SIGTERM-ignoring child: the child is gone within the grace", async () => {
    const { s, marker } = setup();
    const sid = await s.open(fakeAgentSpec(marker));
    const r = await s.call("session/prompt", { sessionId: sid, text: "crash-tree" });
    assert.equal(r.error?.data?.code, "agent_exited");
    const child = pidIn(chunks(s, sid), "child");
    // SIGTERM is ignored: SIGKILL after the 2 s grace.
    assert.ok(await waitDead(child, 4000), `child ${child} of the crashed agent is still alive without any close`);
    assert.deepEqual(processesWithMarker(marker), []);
    const c = await s.ok("session/close", { sessionId: sid });
    // The child's shell and its `sleep` (SIGTERM stays ignored across exec).
    assert.ok(c.processes.killed >= 1 && c.processes.ended >= c.processes.killed, `the close reports the cleanup that ran at the crash (R-SUP-6): ${JSON.stringify(c.processes)}`);
    assert.equal(await s.end(), 0);
  });

  test("R-SUP-3: a CLI turn that exits 0 leaving a SIGTERM-ignoring child: the child is ended at once, the session goes on", async () => {
    const { s, marker } = setup();
    const sid = await s.open(cliSpec(marker));
    const r = await s.ok("session/prompt", { sessionId: sid, text: "leave-child" });
    assert.equal(r.stopReason, "endTurn");
    const child = pidIn(r.text, "child");
    assert.ok(await waitDead(child, 4000), `child ${child} of the finished turn is still alive`);
    assert.match((await s.ok("session/prompt", { sessionId: sid, text: "leave-child" })).text, /child \d+/);
    await s.ok("session/close", { sessionId: sid });
    assert.equal(await s.end(), 0);
    assert.deepEqual(await waitNoProcesses(marker), []);
  });
});

describe("R-SUP-5: a descendant that left the group is ended at close, crash and shutdown", () => {
  for (const [who, prompt] of [
    ["an agent", "daemon"],
    ["an ACP terminal", "terminal-daemon"],
  ] as const) {
    test(`R-SUP-5: a daemon double-forked by ${who} is gone when close answers`, async () => {
      const { s, marker } = setup();
      const sid = await s.open(fakeAgentSpec(marker, [], TERMINALS));
      const daemon = pidIn((await s.ok("session/prompt", { sessionId: sid, text: prompt })).text, "daemon");
      assert.ok(alive(daemon), "the daemon runs");
      const c = await s.ok("session/close", { sessionId: sid });
      assert.ok(!alive(daemon), `daemon ${daemon} survived the close`);
      assert.ok(c.processes.killed >= 1, `the daemon ignores SIGTERM: ${JSON.stringify(c.processes)}`);
      assert.deepEqual(processesWithMarker(marker), []);
      assert.equal(await s.end(), 0);
    });

    test(`R-SUP-5: a daemon double-forked by ${who} is ended when the agent crashes, before any close`, async () => {
      const { s, marker } = setup();
      const sid = await s.open(fakeAgentSpec(marker, [], TERMINALS));
      const daemon = pidIn((await s.ok("session/prompt", { sessionId: sid, text: prompt })).text, "daemon");
      const r = await s.call("session/prompt", { sessionId: sid, text: "crash" });
      assert.equal(r.error?.data?.code, "agent_exited");
      assert.ok(await waitDead(daemon, 4000), `daemon ${daemon} outlived the crashed agent`);
      // The rest of the tree (a terminal's shell ignoring SIGTERM gets SIGKILL after the grace)
      // may end a moment after the daemon: all of it within the same bound, still before any close.
      assert.deepEqual(await waitNoProcesses(marker, 4000), []);
      assert.equal(await s.end(), 0);
    });

    test(`R-SUP-5: a daemon double-forked by ${who} is gone when the sidecar has shut down (EOF)`, async () => {
      const { s, marker } = setup();
      const sid = await s.open(fakeAgentSpec(marker, [], TERMINALS));
      const daemon = pidIn((await s.ok("session/prompt", { sessionId: sid, text: prompt })).text, "daemon");
      assert.equal(await s.end(), 0);
      assert.ok(!alive(daemon), `daemon ${daemon} survived the shutdown`);
      assert.deepEqual(processesWithMarker(marker), []);
    });
  }

  test("R-SUP-5: a daemon double-forked by a CLI turn is ended when the turn is cancelled", async () => {
    const { s, marker } = setup();
    const sid = await s.open(cliSpec(marker));
    const p = s.call("session/prompt", { sessionId: sid, text: "daemon" });
    await s.waitFor(() => /daemon \d+/.test(chunks(s, sid)), 10_000, "the daemon's pid");
    const daemon = pidIn(chunks(s, sid), "daemon");
    await s.ok("session/cancel", { sessionId: sid });
    assert.equal((await p).result?.stopReason, "cancelled");
    assert.ok(await waitDead(daemon, 4000), `daemon ${daemon} outlived the cancelled turn`);
    assert.equal(await s.end(), 0);
    assert.deepEqual(await waitNoProcesses(marker), []);
  });
});

describe("R-SUP-4: nothing outlives a SIGKILLed sidecar by more than 5 s", () => {
  test("R-SUP-4: kill -9 of the sidecar with every lane running: stubborn ACP agent, TERM-trapping CLI turn, PTY session, running terminal, daemons", async () => {
    const { s, marker } = setup();
    const acp = await s.open(fakeAgentSpec(marker, ["--stubborn"]));
    await s.ok("session/prompt", { sessionId: acp, text: "grandchild;daemon" });
    const term = await s.open(fakeAgentSpec(marker, ["--stubborn"], TERMINALS));
    void s.call("session/prompt", { sessionId: term, text: "terminal-sleep" }).catch(() => undefined);
    const cli = await s.open(cliSpec(marker));
    void s.call("session/prompt", { sessionId: cli, text: "trap-term" }).catch(() => undefined);
    const pty = await s.open(cliSpec(marker, { transport: "pty", pty: { idleMs: 60_000 } }));
    void s.call("session/prompt", { sessionId: pty, text: "trap-term" }).catch(() => undefined);
    const cliDaemon = await s.open(cliSpec(marker));
    void s.call("session/prompt", { sessionId: cliDaemon, text: "daemon" }).catch(() => undefined);
    await s.waitFor(
      () => /terminal term-/.test(chunks(s, term)) && /running/.test(chunks(s, cli)) && /running/.test(chunks(s, pty)) && /daemon \d+/.test(chunks(s, cliDaemon)),
      15_000,
      "every lane running",
    );
    const before = processesWithMarker(marker);
    assert.ok(before.length >= 12, `expected the whole zoo running, found ${before.length} processes`);
    const t0 = Date.now();
    s.proc.kill("SIGKILL");
    await s.exited;
    const left = await waitNoProcesses(marker, 5000);
    assert.deepEqual(left, [], `alive ${Date.now() - t0} ms after the sidecar's SIGKILL`);
    // The guard writes to the stderr it shares with the dead sidecar.
    await s.waitFor(() => /a4aa guard: the sidecar went away/.test(s.stderr), 10_000, "the guard to say what it did");
  });
});

describe("R-SUP-6: session/close answers what the cleanup ended", () => {
  test("R-SUP-6: an agent that exits on EOF is 1 ended, 0 killed; grandchildren ignoring SIGTERM are counted as killed; closed and unknown ids are 0", async () => {
    const { s, marker } = setup();
    const plain = await s.open(fakeAgentSpec(marker));
    await s.ok("session/prompt", { sessionId: plain, text: "text:x" });
    assert.deepEqual((await s.ok("session/close", { sessionId: plain })).processes, { ended: 1, killed: 0 });
    assert.deepEqual((await s.ok("session/close", { sessionId: plain })).processes, { ended: 0, killed: 0 }, "a closed id");
    assert.deepEqual((await s.ok("session/close", { sessionId: "never-known" })).processes, { ended: 0, killed: 0 }, "an unknown id");
    const tree = await s.open(fakeAgentSpec(marker));
    await s.ok("session/prompt", { sessionId: tree, text: "grandchild" });
    const n = processesWithMarker(marker).length;
    const c = (await s.ok("session/close", { sessionId: tree })).processes;
    // Each shell loop starts a new `sleep 1` every second: those that came and went during the ladder count too.
    assert.ok(c.ended >= 3 && c.ended <= n + 8, `ended ${c.ended} (${n} processes seen before the close)`);
    assert.ok(c.killed >= 2 && c.killed < c.ended, `killed ${c.killed}: the agent itself left on EOF, both grandchildren needed SIGKILL`);
    assert.equal(await s.end(), 0);
    assert.deepEqual(await waitNoProcesses(marker), []);
  });
});
