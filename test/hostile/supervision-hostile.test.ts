// Supervision an agent cannot disarm (issue 30, round 2): N2 (an agent kills the guard again
// and again: it is replaced every time and a SIGKILLed sidecar still leaves no agent), N3
// (secret-bearing temporary folders are gone after a SIGKILL of the sidecar, and a starting
// sidecar sweeps those of a dead one), N7 (--max-agent-processes refuses a prewarm flood and
// opens beyond it, at_capacity, retryable). Real sidecars; every assertion from /proc or disk.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import type { AgentSpec } from "../../generated/ts/types.js";
import { fakeAgentSpec, processesWithMarker, sidecarSetup, waitNoProcesses, type TestSidecar } from "../helpers/sidecar.js";
import { liveProcesses } from "../helpers/procs.js";
import { scratchDir } from "../helpers/tmp.js";

const setup = sidecarSetup();

/** The sidecar's guard processes (children of the sidecar running guard-main). */
function guardsOf(sidecarPid: number): number[] {
  return liveProcesses((pid) => {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
      return ppid === sidecarPid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("guard-main");
    } catch {
      return false;
    }
  });
}

async function until<T>(what: string, ms: number, get: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const text = (s: TestSidecar, sid: string) =>
  s
    .events(sid)
    .filter((e) => e.type === "messageChunk")
    .map((e) => (e as { text: string }).text)
    .join("");

describe("N2: an agent cannot disarm the guard", () => {
  test("R-SUP-4: an agent kills the guard 8 times; each time another replaces it; then kill -9 of the sidecar leaves no agent", async () => {
    const { s, marker } = setup();
    const killer = await s.open(fakeAgentSpec(marker, ["--stubborn"]));
    await s.ok("session/prompt", { sessionId: killer, text: "grandchild;daemon" });
    const pid = s.proc.pid!;
    let guard = await until("the first guard", 5000, () => guardsOf(pid)[0]);
    for (let i = 1; i <= 8; i++) {
      await s.ok("session/prompt", { sessionId: killer, text: "kill-guard" });
      assert.match(text(s, killer), new RegExp(`guard ${guard}(?!\\d)`), `round ${i}: the agent killed guard ${guard}`);
      // Replaced without limit: at once, then after a backoff of at most 2 s.
      const old = guard;
      guard = await until(`guard ${i + 1}`, 5000, () => guardsOf(pid).find((g) => g !== old));
    }
    assert.equal((s.stderr.match(/the guard process \d+ ended \(SIGKILL\)/g) ?? []).length, 8, "the host is told each time");
    // A new session works once a guard runs again.
    const other = await s.open(fakeAgentSpec(marker, ["--stubborn"]));
    await s.ok("session/prompt", { sessionId: other, text: "grandchild" });
    const before = processesWithMarker(marker);
    assert.ok(before.length >= 6, `two stubborn agents with grandchildren and a daemon, found ${before.length}`);
    s.proc.kill("SIGKILL");
    await s.exited;
    assert.deepEqual(await waitNoProcesses(marker, 5000), [], "alive 5 s after the sidecar's SIGKILL");
  });
});

/** A CLI spec that is never started at open (per-turn), so the test holds only the folders. */
function cliSpec(driver: string): AgentSpec {
  return { id: `tmp-${driver}`, lane: "cli", driver, command: { program: process.execPath, args: ["-e", ""], env: { policy: "sanitized", inherit: ["PATH"] } } } as AgentSpec;
}

const SECRET = "mcp-secret-4f1c";
const mcp = [{ name: "srv", command: "/bin/true", args: ["x"], env: { TOKEN: SECRET } }];

/** Every a4aa folder under `dirs`, with the files in it. */
function a4aaFolders(dirs: string[]): string[] {
  return dirs.flatMap((d) => (existsSync(d) ? readdirSync(d).filter((n) => n.startsWith("a4aa-")).map((n) => path.join(d, n)) : []));
}

describe("N3: no secret-bearing file outlives the sidecar", () => {
  test("R-SUP-4: kill -9 of the sidecar with MCP configs (opencode's OPENCODE_CONFIG, Gemini's settings folder) present: the guard removes them within 5 s", async () => {
    const tmp = scratchDir("a4aa-n3-tmp");
    const home = scratchDir("a4aa-n3-home");
    const { s } = setup({ env: { ...process.env, TMPDIR: tmp, HOME: home } });
    await s.open(cliSpec("opencode"), { options: { mcpServers: mcp } });
    await s.open(cliSpec("gemini"), { options: { mcpServers: mcp } });
    const dirs = [tmp, path.join(home, ".cache", "a4aa")];
    const made = a4aaFolders(dirs);
    assert.equal(made.length, 2, `one folder per session: ${made.join(", ")}`);
    assert.ok(
      made.some((d) => readdirSync(d).some((f) => readFileSync(path.join(d, f), "utf8").includes(SECRET))),
      "the folders hold the MCP secret (what makes them worth removing)",
    );
    s.proc.kill("SIGKILL");
    await s.exited;
    const left = await until("the folders removed", 5000, () => (a4aaFolders(dirs).length === 0 ? [] : false));
    assert.deepEqual(left, []);
  });

  test("R-SUP-4: a starting sidecar sweeps the temporary folders of a dead sidecar (pid + start time gone), and leaves a live owner's and foreign names alone", async () => {
    const tmp = scratchDir("a4aa-n3-sweep");
    const mk = (name: string) => {
      const d = path.join(tmp, name);
      mkdirSync(d, { mode: 0o700 });
      writeFileSync(path.join(d, "mcp.json"), SECRET);
      return d;
    };
    // Our own pid with another start time: a dead sidecar whose pid was reused.
    const dead = mk(`a4aa-claudeCode-o${process.pid}x1-AbC123`);
    const gone = mk("a4aa-content-o999999999x5-Zz9Yy8");
    const self = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ")[19];
    const live = mk(`a4aa-gemini-o${process.pid}x${self}-Qq1Ww2`);
    const foreign = mk("a4aa-content-it-abcdef");
    const { s } = setup({ env: { ...process.env, TMPDIR: tmp }, args: ["--log-level", "info"] });
    await s.ok("ping", {});
    assert.equal(existsSync(dead), false, "a reused pid is not the owner");
    assert.equal(existsSync(gone), false, "a gone owner's folder is swept");
    assert.equal(existsSync(live), true, "a live owner's folder stays");
    assert.equal(existsSync(foreign), true, "a name a4aa did not make stays");
    await s.stderrMatch(/removed 2 temporary folder\(s\) left by sidecars that are gone/);
  });
});

describe("N7: a bound on agent processes per sidecar", () => {
  test("R-HOSTILE-2: --max-agent-processes 4: a prewarm flood (6 specs × 64) is refused whole (at_capacity, retryable) before anything starts; opens beyond the bound too; a close makes room", async () => {
    const { s, marker } = setup(["--max-agent-processes", "4"]);
    const shared = (i: number) => ({ ...fakeAgentSpec(marker), id: `flood-${i}`, share: {} }) as AgentSpec;
    const floods = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => s.call("agents/prewarm", { spec: shared(i), count: 64 })));
    for (const flood of floods) {
      assert.equal(flood.error?.data?.code, "at_capacity", JSON.stringify(flood));
      assert.equal(flood.error?.data?.retryable, true);
      assert.match(flood.error?.data?.detail ?? "", /bound of 4 agent processes \(--max-agent-processes/);
    }
    assert.deepEqual(processesWithMarker(marker), [], "nothing of the flood was started");
    // Within the bound: 2 prewarmed shared processes and 2 sessions of their own.
    assert.equal((await s.ok("agents/prewarm", { spec: shared(0), count: 2 })).started, 2);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push(await s.open(fakeAgentSpec(marker)));
    const over = await s.call("session/open", { spec: fakeAgentSpec(marker) });
    assert.equal(over.error?.data?.code, "at_capacity", JSON.stringify(over));
    assert.equal(over.error?.data?.retryable, true);
    await s.ok("session/close", { sessionId: ids[0] });
    const again = await s.open(fakeAgentSpec(marker));
    await s.ok("session/prompt", { sessionId: again, text: "text:room" });
    assert.equal(await s.end(), 0);
    assert.deepEqual(await waitNoProcesses(marker), []);
  });
});
