// Shared agent processes (§13, R-SHARE-1/2) through a real sidecar and the fake ACP agent:
// what runs on one process stays per session; the process's lifetime; agents/prewarm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentSpec } from "../../generated/ts/types.js";
import { fakeAgentSpec, processesWithMarker, sidecarSetup, waitNoProcesses, type PermissionAnswer } from "../helpers/sidecar.js";
import { liveProcesses, waitGone } from "../helpers/procs.js";
import { scratchDir } from "../helpers/tmp.js";

const setup = sidecarSetup();

const sharedSpec = (marker: string, share: Record<string, unknown> = {}, flags: string[] = [], extra: Partial<AgentSpec> = {}): AgentSpec =>
  ({ ...fakeAgentSpec(marker, flags, extra), share }) as AgentSpec;

const texts = (s: ReturnType<typeof setup>["s"], sid: string) =>
  s
    .events(sid)
    .filter((e) => e.type === "messageChunk")
    .map((e) => (e as { text: string }).text)
    .join("");
const pidOf = (text: string) => /pid (\d+)/.exec(text)?.[1];

test("R-SHARE-1: 8 sessions on one shared process stream distinct texts at once; each gets only its own events", async () => {
  const { s, marker } = setup();
  const opened = await Promise.all(Array.from({ length: 8 }, () => s.ok("session/open", { spec: sharedSpec(marker, { maxSessions: 8 }) })));
  opened.forEach((o) => assert.equal(o.shared, true));
  assert.equal(processesWithMarker(marker).length, 1, "8 sessions with equal specs run on one process");
  const ids: string[] = opened.map((o) => o.sessionId);
  const outcomes = await Promise.all(ids.map((sid, i) => s.ok("session/prompt", { sessionId: sid, text: `slow:6;text:<S${i}>;pids` })));
  const pids = new Set<string | undefined>();
  ids.forEach((sid, i) => {
    const t = texts(s, sid);
    assert.ok(outcomes[i].text.startsWith(`1 2 3 4 5 6 <S${i}>pid `), outcomes[i].text);
    assert.equal((t.match(/<S\d>/g) ?? []).join(), `<S${i}>`, `session ${i} saw another session's text: ${t}`);
    const chunks = s.events(sid).filter((e) => e.type === "messageChunk").map((e) => (e as { text: string }).text);
    assert.deepEqual(chunks.slice(0, 7), ["1 ", "2 ", "3 ", "4 ", "5 ", "6 ", `<S${i}>`], `session ${i} got ${t}`);
    assert.equal(chunks.length, 8);
    pids.add(pidOf(t));
  });
  assert.equal(pids.size, 1, `the sessions ran on ${pids.size} processes`);
  await Promise.all(ids.map((sid) => s.ok("session/close", { sessionId: sid })));
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-SHARE-1: permission answers cross on one process: each session's answer reaches its own agent session only", async () => {
  // The host answers the sessions in the reverse order they asked, each with its own option.
  const asked: { sid: string; release: () => void }[] = [];
  const choice = new Map<string, string>();
  const { s, marker } = setup({
    onPermission: (p): Promise<PermissionAnswer> =>
      new Promise((resolve) => {
        asked.push({ sid: p.sessionId, release: () => resolve({ result: { selected: choice.get(p.sessionId)! } }) });
        if (asked.length === 4) for (const a of [...asked].reverse()) a.release();
      }),
  });
  const ids = await Promise.all(Array.from({ length: 4 }, () => s.open(sharedSpec(marker))));
  ids.forEach((sid, i) => choice.set(sid, i % 2 ? "no" : "yes"));
  assert.equal(processesWithMarker(marker).length, 1);
  const outcomes = await Promise.all(ids.map((sid) => s.ok("session/prompt", { sessionId: sid, text: "permission" })));
  assert.equal(asked.length, 4);
  outcomes.forEach((o, i) => assert.equal(o.text, `outcome:selected:${i % 2 ? "no" : "yes"}`, `session ${i}`));
  for (const sid of ids) {
    const requests = s.permissionRequests().filter((p) => p.sessionId === sid);
    assert.equal(requests.length, 1, "one permission request per session, under its own id");
    const resolved = s.events(sid).filter((e) => e.type === "permissionResolved");
    assert.equal(resolved.length, 1);
  }
  assert.equal(await s.end(), 0);
});

test("R-SHARE-1: cancel of one of 4 concurrent turns on one process cancels only that turn", async () => {
  const { s, marker } = setup();
  const ids = await Promise.all(Array.from({ length: 4 }, () => s.open(sharedSpec(marker))));
  const turns = ids.map((sid) => s.ok("session/prompt", { sessionId: sid, text: "slow:30" }));
  await s.waitFor(() => ids.every((sid) => texts(s, sid).includes("3 ")), 10_000, "all four turns to stream");
  await s.ok("session/cancel", { sessionId: ids[1] });
  const outcomes = await Promise.all(turns);
  assert.equal(outcomes[1].stopReason, "cancelled");
  assert.ok(!outcomes[1].text.includes("30 "), `the cancelled turn ran to its end: ${outcomes[1].text}`);
  for (const i of [0, 2, 3]) {
    assert.equal(outcomes[i].stopReason, "endTurn", `session ${i}`);
    assert.ok(outcomes[i].text.endsWith("29 30 "), `session ${i} was cut short: ${outcomes[i].text}`);
  }
  assert.equal(await s.end(), 0);
});

test("R-SHARE-1: fs/* of a session on a shared process stays in its own cwd: reads toward another session's cwd are refused", async () => {
  const { s, marker } = setup();
  const root = scratchDir("share-fs");
  const [a, b] = ["a", "b"].map((n) => path.join(root, n));
  for (const d of [a, b]) mkdirSync(d);
  writeFileSync(path.join(b, "secret.txt"), "B's secret");
  writeFileSync(path.join(a, "own.txt"), "A's own");
  const spec = sharedSpec(marker, {}, [], { clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } } as Partial<AgentSpec>);
  const sa = await s.open(spec, { cwd: a });
  const sb = await s.open(spec, { cwd: b });
  assert.equal(processesWithMarker(marker).length, 1, "both sessions share one process");
  const own = await s.ok("session/prompt", { sessionId: sa, text: `fs-read:${path.join(a, "own.txt")}` });
  assert.equal(own.text, "content:A's own");
  for (const p of [path.join(b, "secret.txt"), path.join(a, "../b/secret.txt")]) {
    const r = await s.ok("session/prompt", { sessionId: sa, text: `fs-read:${p}` });
    assert.match(r.text, /^error:/, `session A read ${p}: ${r.text}`);
    assert.doesNotMatch(r.text, /B's secret/);
  }
  const w = await s.ok("session/prompt", { sessionId: sa, text: `fs-write:${path.join(b, "planted.txt")}=x` });
  assert.match(w.text, /^error:/, `session A wrote into B's cwd: ${w.text}`);
  const theirs = await s.ok("session/prompt", { sessionId: sb, text: `fs-read:${path.join(b, "secret.txt")}` });
  assert.equal(theirs.text, "content:B's secret", "session B reads its own cwd");
  assert.equal(await s.end(), 0);
});

test("R-SHARE-1: session/close on a shared process goes through the agent's session/close when offered; the other session goes on", async () => {
  const { s, marker } = setup();
  const spec = sharedSpec(marker, {}, ["--session-close"]);
  const oa = await s.ok("session/open", { spec });
  const ob = await s.ok("session/open", { spec });
  const before = await s.ok("session/prompt", { sessionId: ob.sessionId, text: "sessions" });
  assert.equal(before.text, `sessions ${oa.nativeSessionId},${ob.nativeSessionId}`);
  const closed = await s.ok("session/close", { sessionId: oa.sessionId });
  assert.deepEqual(closed.processes, { ended: 0, killed: 0 }, "closing one session of a shared process ends no process");
  const after = await s.ok("session/prompt", { sessionId: ob.sessionId, text: "sessions" });
  assert.equal(after.text, `sessions ${ob.nativeSessionId}`, "the agent was not told the session closed");
  assert.equal(processesWithMarker(marker).length, 1);
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-SHARE-2: a crash of the shared process mid-turn fails the turns of all 4 sessions with agent_exited; the next open starts a fresh process", async () => {
  const { s, marker } = setup();
  const ids = await Promise.all(Array.from({ length: 4 }, () => s.open(sharedSpec(marker))));
  const first = pidOf((await s.ok("session/prompt", { sessionId: ids[0], text: "pids" })).text);
  const turns = ids.slice(1).map((sid) => s.call("session/prompt", { sessionId: sid, text: "slow:200" }));
  await s.waitFor(() => ids.slice(1).every((sid) => texts(s, sid).includes("2 ")), 10_000, "three turns to stream");
  const crash = await s.call("session/prompt", { sessionId: ids[0], text: "crash" });
  assert.equal(crash.error?.data?.code, "agent_exited", JSON.stringify(crash));
  for (const r of await Promise.all(turns)) assert.equal(r.error?.data?.code, "agent_exited", JSON.stringify(r.error ?? r.result));
  // The dead sessions are good only for close.
  const again = await s.call("session/prompt", { sessionId: ids[1], text: "text:x" });
  assert.equal(again.error?.data?.code, "agent_exited");
  const fresh = await s.open(sharedSpec(marker));
  const second = pidOf((await s.ok("session/prompt", { sessionId: fresh, text: "text:fresh;pids" })).text);
  assert.ok(first && second && first !== second, `the open after the crash ran on ${second}, the crashed process was ${first}`);
  for (const sid of ids) await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-SHARE-2: a shared process lives idleMs after its last session closed, then ends; an open meanwhile reuses it", async () => {
  const { s, marker } = setup();
  // Long enough for an open right after a close on a loaded machine; the end is measured
  // from below only (a load can delay it, never hasten it).
  const IDLE_MS = 2000;
  const spec = sharedSpec(marker, { idleMs: IDLE_MS });
  const a = await s.open(spec);
  const pid = pidOf((await s.ok("session/prompt", { sessionId: a, text: "pids" })).text);
  await s.ok("session/close", { sessionId: a });
  assert.deepEqual(processesWithMarker(marker).map(String), [pid], "the process ended with its last session, not idleMs after");
  const b = await s.open(spec);
  assert.equal(pidOf((await s.ok("session/prompt", { sessionId: b, text: "pids" })).text), pid, "an open within idleMs reuses the process");
  await s.ok("session/close", { sessionId: b });
  const closed = Date.now();
  assert.deepEqual(await waitNoProcesses(marker, IDLE_MS + 8000), [], "the idle process did not end");
  assert.ok(Date.now() - closed >= IDLE_MS - 50, `the idle process ended ${Date.now() - closed} ms after its last session, before idleMs`);
  const c = await s.open(spec);
  assert.notEqual(pidOf((await s.ok("session/prompt", { sessionId: c, text: "pids" })).text), pid, "an open after idleMs starts a fresh process");
  assert.equal(await s.end(), 0);
});

test("R-SHARE-2: at shutdown no shared process is left, idle or holding sessions", async () => {
  const { s, marker } = setup();
  const held = await s.open(sharedSpec(marker, { idleMs: 600_000 }));
  const idle = await s.open(sharedSpec(marker, { idleMs: 600_000, maxSessions: 1 }));
  await s.ok("session/close", { sessionId: idle });
  assert.equal(processesWithMarker(marker).length, 2);
  await s.ok("session/prompt", { sessionId: held, text: "text:x" });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("agents/prewarm starts and initializes the processes; the next open spawns nothing and runs on one of them", async () => {
  const { s, marker } = setup();
  const spec = sharedSpec(marker, { maxSessions: 2 });
  assert.deepEqual(await s.ok("agents/prewarm", { spec, count: 2 }), { processes: 2, started: 2 });
  const warm = processesWithMarker(marker).sort();
  assert.equal(warm.length, 2);
  assert.deepEqual(await s.ok("agents/prewarm", { spec, count: 2 }), { processes: 2, started: 0 }, "a second prewarm starts nothing");
  const ids = await Promise.all([s.open(spec), s.open(spec), s.open(spec), s.open(spec)]);
  assert.deepEqual(processesWithMarker(marker).sort(), warm, "4 opens with room on 2 prewarmed processes spawned");
  const pids = await Promise.all(ids.map(async (sid) => pidOf((await s.ok("session/prompt", { sessionId: sid, text: "pids" })).text)));
  assert.deepEqual([...new Set(pids)].map(Number).sort(), warm);
  const fifth = await s.open(spec);
  assert.equal(processesWithMarker(marker).length, 3, "a fifth session (no room left) starts a third process");
  await s.ok("session/close", { sessionId: fifth });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("agents/prewarm refuses a spec without share (invalid_params) and starts nothing", async () => {
  const { s, marker } = setup();
  const r = await s.call("agents/prewarm", { spec: fakeAgentSpec(marker) });
  assert.equal(r.error?.data?.code, "invalid_params");
  assert.equal(processesWithMarker(marker).length, 0);
  assert.equal(await s.end(), 0);
});

test("specs differing in env (the spec's or the open's) never share a process; equal ones do", async () => {
  const { s, marker } = setup();
  const base = sharedSpec(marker);
  const other = sharedSpec(marker);
  (other.command.env as { set: Record<string, string> }).set.OTHER = "1";
  const a = await s.open(base);
  const b = await s.open(other);
  const c = await s.open(base, { env: { PER_OPEN: "x" } });
  const d = await s.open(base);
  const pid = async (sid: string) => pidOf((await s.ok("session/prompt", { sessionId: sid, text: "pids" })).text);
  const [pa, pb, pc, pd] = await Promise.all([a, b, c, d].map(pid));
  assert.equal(new Set([pa, pb, pc]).size, 3, `env differences shared a process: ${pa} ${pb} ${pc}`);
  assert.equal(pd, pa, "an equal spec did not reuse the process");
  assert.equal(processesWithMarker(marker).length, 3);
  assert.equal(await s.end(), 0);
});

test("R-SHARE-1: terminals on a shared process are their session's: closing one session ends its terminal only", async () => {
  const { s, marker } = setup();
  const spec = sharedSpec(marker, {}, [], { clientCapabilities: { terminal: true } } as Partial<AgentSpec>);
  const [a, b] = [await s.open(spec), await s.open(spec)];
  // Each turn starts a terminal running `sleep 300`, then waits.
  const ta = s.call("session/prompt", { sessionId: a, text: "terminal-sleep" });
  const tb = s.call("session/prompt", { sessionId: b, text: "terminal-sleep" });
  const sleepers = () =>
    liveProcesses((pid) => {
      const env = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
      return env.includes(`A4AA_TEST_MARKER=${marker}`) && readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim() === "sleep 300";
    });
  await s.waitFor(() => [a, b].every((sid) => texts(s, sid).startsWith("terminal ")), 10_000, "both terminals");
  await waitGone(() => (sleepers().length === 2 ? [] : [0]), 5000);
  assert.equal(sleepers().length, 2, "two terminals run");
  await s.ok("session/close", { sessionId: a });
  assert.equal((await ta).error?.data?.code ?? (await ta).result?.stopReason, "cancelled");
  assert.equal(sleepers().length, 1, "closing session A ended B's terminal too, or left its own");
  assert.ok(processesWithMarker(marker).length > sleepers().length, "the shared process lives on");
  await s.ok("session/cancel", { sessionId: b });
  assert.equal((await tb).result?.stopReason, "cancelled");
  await s.ok("session/close", { sessionId: b });
  assert.deepEqual(await waitGone(sleepers, 5000), [], "B's terminal ended with B");
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-SHARE-1: with --record, a session on a shared process has its own transcript: no other session's traffic in it", async () => {
  const dir = scratchDir("share-rec");
  const { s, marker } = setup(["--record", dir]);
  const spec = sharedSpec(marker);
  const a = await s.open(spec);
  const b = await s.open(spec);
  await Promise.all([s.ok("session/prompt", { sessionId: a, text: "text:ONLY-IN-A" }), s.ok("session/prompt", { sessionId: b, text: "text:ONLY-IN-B" })]);
  await s.ok("session/close", { sessionId: a });
  await s.ok("session/close", { sessionId: b });
  assert.equal(await s.end(), 0);
  const files = readdirSync(dir).map((f) => readFileSync(path.join(dir, f), "utf8"));
  const of = (sid: string) => files.filter((t) => t.includes(sid)).join("\n");
  assert.ok(of(a).includes("ONLY-IN-A") && !of(a).includes("ONLY-IN-B"), "session A's transcript holds B's traffic");
  assert.ok(of(b).includes("ONLY-IN-B") && !of(b).includes("ONLY-IN-A"), "session B's transcript holds A's traffic");
});

test("R-SHARE-2: a shared process that dies under an open's session/new fails that open agent_exited at stage initialize (retryable); the next open starts a fresh process", async () => {
  const { s, marker } = setup();
  const spec = sharedSpec(marker, { maxSessions: 4 }, ["--crash-on-second-session"]);
  const first = await s.ok("session/open", { spec });
  const pid = pidOf((await s.ok("session/prompt", { sessionId: first.sessionId, text: "pids" })).text);
  const r = await s.call("session/open", { spec });
  assert.equal(r.error?.data?.code, "agent_exited", JSON.stringify(r.error ?? r.result));
  assert.equal(r.error?.data?.stage, "initialize");
  assert.equal(r.error?.data?.retryable, true);
  const again = await s.ok("session/open", { spec });
  const pid2 = pidOf((await s.ok("session/prompt", { sessionId: again.sessionId, text: "pids" })).text);
  assert.ok(pid2 && pid2 !== pid, `the open after the crash ran on ${pid2}, the crashed process was ${pid}`);
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-SHARE-1: a session/new that hangs on a shared process fails that open initialize_failed at the handshake deadline; the process and its other session go on", async () => {
  const { s, marker } = setup();
  const spec = { ...sharedSpec(marker, { maxSessions: 4 }, ["--hang-second-session"]), handshakeTimeoutMs: 2000 } as AgentSpec;
  const first = await s.ok("session/open", { spec });
  const t0 = Date.now();
  const r = await s.call("session/open", { spec });
  assert.equal(r.error?.data?.code, "initialize_failed", JSON.stringify(r.error ?? r.result));
  assert.equal(r.error?.data?.retryable, true);
  assert.match(r.error?.data?.detail ?? "", /did not complete the handshake within 2000 ms \(no answer to session\/new\); the shared process goes on/);
  // Measured from below (a load delays, never hastens), and bounded well above.
  assert.ok(Date.now() - t0 >= 1950 && Date.now() - t0 < 15_000, `the deadline held (${Date.now() - t0} ms)`);
  const after = await s.ok("session/prompt", { sessionId: first.sessionId, text: "text:still here" });
  assert.match(after.text, /still here/);
  assert.equal(processesWithMarker(marker).length, 1, "the shared process was not stopped for one session's deadline");
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-SHARE-1 (issue 30 N5): a shared agent answering two session/new with one id: the second open fails agent_protocol_error, the process is stopped, the next open starts a fresh one", async () => {
  const { s, marker } = setup();
  const spec = sharedSpec(marker, { maxSessions: 8 }, ["--one-session-id"]);
  const first = (await s.ok("session/open", { spec })).sessionId;
  const firstPid = pidOf((await s.ok("session/prompt", { sessionId: first, text: "pids" })).text);
  const second = await s.call("session/open", { spec });
  assert.equal(second.error?.data?.code, "agent_protocol_error", JSON.stringify(second));
  assert.equal(second.error.data.stage, "open");
  assert.match(second.error.data.detail, /another session already holds/);
  // Not trusted further: the first session's process is gone, its next turn fails.
  const after = await s.call("session/prompt", { sessionId: first, text: "text:hello" });
  assert.ok(after.error, JSON.stringify(after));
  assert.deepEqual(await waitGone(() => liveProcesses((pid) => pid === Number(firstPid))), []);
  const third = (await s.ok("session/open", { spec })).sessionId;
  const thirdPid = pidOf((await s.ok("session/prompt", { sessionId: third, text: "pids" })).text);
  assert.notEqual(thirdPid, firstPid);
  await s.ok("session/close", { sessionId: first });
  await s.ok("session/close", { sessionId: third });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});
