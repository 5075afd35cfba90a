// R-SANDBOX-2 "supervision holds inside the sandbox" (§8): nothing of a sandboxed session
// outlives its close, its agent's crash, or a SIGKILLed sidecar — grandchildren, a
// double-forked daemon and a running terminal included; the stop ladder's SIGTERM still
// reaches the agent itself (bubblewrap's own processes are spared it, so the agent exits
// gracefully instead of being killed with its sandbox); the session's private folder goes.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import type { AgentSpec } from "../../generated/ts/types.js";
import { markedNodeCommand } from "../helpers/host.js";
import { fakeAgentSpec, processesWithMarker, sidecarSetup, waitNoProcesses } from "../helpers/sidecar.js";
import { HOSTILE, SKIP, guardOf, sandboxFolders, world } from "./harness.js";

const setup = sidecarSetup();
const NONE = { sandbox: { filesystem: "cwd", network: "none" } };

describe("R-SANDBOX-2: supervision holds inside the sandbox", { skip: SKIP }, () => {
  test("close ends the agent, its grandchildren and a double-forked daemon; the counts say so; the private folder is gone", async () => {
    const w = world();
    const { s, marker } = setup();
    const open = await s.ok("session/open", { spec: fakeAgentSpec(marker, ["--stubborn"]), cwd: w.cwdA, options: NONE });
    await s.ok("session/prompt", { sessionId: open.sessionId, text: "grandchild;daemon" });
    assert.ok(processesWithMarker(marker).length >= 5, "bwrap ×2, the agent, two grandchildren and a daemon run");
    assert.equal(sandboxFolders(tmpdir(), s.proc.pid!).length, 1);
    const closed = await s.ok("session/close", { sessionId: open.sessionId });
    assert.ok(closed.processes.ended >= 5, JSON.stringify(closed));
    assert.deepEqual(processesWithMarker(marker), [], "nothing is left when close answers");
    assert.deepEqual(sandboxFolders(tmpdir(), s.proc.pid!), []);
  });

  test("an agent that crashes leaving a child that ignores SIGTERM leaves nothing", async () => {
    const w = world();
    const { s, marker } = setup();
    const open = await s.ok("session/open", { spec: fakeAgentSpec(marker), cwd: w.cwdA, options: NONE });
    const r = await s.call("session/prompt", { sessionId: open.sessionId, text: "crash-tree" });
    assert.equal(r.error?.data?.code, "agent_exited");
    assert.match(r.error.data.detail, /exited with code 3/, "the agent's own exit code, through bubblewrap");
    assert.deepEqual(await waitNoProcesses(marker), []);
    await s.ok("session/close", { sessionId: open.sessionId });
  });

  test("the stop ladder's SIGTERM reaches the agent inside, which ends by itself (no SIGKILL)", async () => {
    const w = world();
    const { s, marker } = setup();
    const spec = { id: "linger", lane: "acp", command: markedNodeCommand(HOSTILE, ["--linger"], marker) } as AgentSpec;
    const open = await s.ok("session/open", { spec, cwd: w.cwdA, options: NONE });
    const closed = await s.ok("session/close", { sessionId: open.sessionId });
    assert.ok(existsSync(path.join(w.cwdA, "terminated")), "its SIGTERM handler ran");
    assert.equal(closed.processes.killed, 0, JSON.stringify(closed));
    assert.deepEqual(processesWithMarker(marker), []);
  });

  test("R-SUP-4: kill -9 of the sidecar ends every sandboxed agent, grandchild, daemon and terminal at once; the guard removes the private folders", async () => {
    const w = world();
    const { s, marker } = setup();
    const sidecar = s.proc.pid!;
    const spec = { ...fakeAgentSpec(marker, ["--stubborn"]), clientCapabilities: { terminal: true } } as AgentSpec;
    const a = await s.ok("session/open", { spec, cwd: w.cwdA, options: NONE });
    const b = await s.ok("session/open", { spec, cwd: w.cwdB, options: NONE });
    await s.ok("session/prompt", { sessionId: a.sessionId, text: "grandchild;daemon" });
    // The turn goes on for a minute; its terminal runs from its first chunk on.
    void s.call("session/prompt", { sessionId: b.sessionId, text: "terminal-sleep" }).catch(() => undefined);
    await s.waitFor(() => s.events(b.sessionId).some((e) => e.type === "messageChunk" && /terminal term-/.test(e.text)), 10_000, "the terminal");
    await guardOf(sidecar);
    assert.ok(processesWithMarker(marker).length >= 8);
    assert.equal(sandboxFolders(tmpdir(), sidecar).length, 2);
    s.proc.kill("SIGKILL");
    const t0 = Date.now();
    assert.deepEqual(await waitNoProcesses(marker, 5000), [], "nothing of either sandbox survives");
    const took = Date.now() - t0;
    const deadline = Date.now() + 5000;
    while (sandboxFolders(tmpdir(), sidecar).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(sandboxFolders(tmpdir(), sidecar), [], "the guard removed the private folders");
    assert.ok(took < 3000, `gone ${took} ms after the SIGKILL (bubblewrap dies with its parent)`);
  });
});
