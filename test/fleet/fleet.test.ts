// Issue 26's fleet across hosts on one machine: three sidecars, each in its own network
// namespace with its own address on a test bridge (`--listen ws://ADDR:7700` with a token),
// and this test as the host in a fourth, spreading 30 sessions of the example agent over them
// with the example scheduler (examples/fleet/scheduler.ts), which reads /readyz and /metrics.
// Then (a) one sidecar's link is cut for 10 s mid-turn and restored: its sessions detach, the
// turns go on, the host catches up with nothing lost; (b) one gets SIGTERM: readiness fails
// first, running turns finish, new opens go to the others, its sessions are placed again;
// (c) one is SIGKILLed: its sessions fail, the others never notice, nothing of it is left.
// Run through `npm run test:fleet` (test/fleet/run.ts makes and removes the network); alone,
// it is skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { TurnEnd, type RemoteClient } from "../../clients/ts/index.js";
import { FleetScheduler, type Placement, type Sidecar } from "../../examples/fleet/scheduler.js";
import { descendants, readProc, stillRunning, type ProcInfo } from "../../src/supervise/process-tree.js";
import { exampleAgentSpec, waitNoProcesses } from "../helpers/sidecar.js";
import { waitGone } from "../helpers/procs.js";
import { scratchDir } from "../helpers/tmp.js";
import { remoteSetup, type ListeningSidecar } from "../integration/remote/setup.js";
import { setLink, type Topology } from "./netns.js";

const topology: Topology | undefined = process.env.A4AA_FLEET ? JSON.parse(process.env.A4AA_FLEET) : undefined;
const skip = topology ? false : "needs the network namespaces npm run test:fleet makes (test/fleet/run.ts)";

const PORT = 7700;
const DRAIN_TIMEOUT_MS = 20_000;
const CUT_MS = 10_000;
const { start, marker } = remoteSetup();
const dir = scratchDir("a4aa-fleet");
const TOKEN = randomBytes(24).toString("hex");
const tokens = path.join(dir, "tokens");
writeFileSync(tokens, `fleet:${TOKEN}\n`, { mode: 0o600 });
const agentMarker = marker();
const spec = exampleAgentSpec(agentMarker, ["--delay-ms", "1"]);
const log: string[] = [];
const say = (line: string) => {
  log.push(line);
  process.stdout.write(`# fleet: ${line}\n`);
};

interface Node {
  name: string;
  proc: ListeningSidecar;
  url: string;
  marker: string;
}

/** The fleet as the tests leave it for the next. */
const fleet = {
  nodes: [] as Node[],
  scheduler: undefined as unknown as FleetScheduler,
  placements: [] as Placement[],
};

const node = (name: string) => fleet.nodes.find((n) => n.name === name)!;
const sidecarOf = (name: string): Sidecar => fleet.scheduler.sidecars.find((s) => s.url === node(name).url)!;
const on = (name: string) => fleet.placements.filter((p) => p.sidecar.url === node(name).url);
const clientOf = (name: string): Promise<RemoteClient> => sidecarOf(name).client!;
const httpOf = (name: string) => node(name).url.replace(/^ws/, "http");

function startNode(name: string): Node {
  const m = topology!.members[name];
  const nodeMarker = marker();
  const proc = start(
    ["--listen", `ws://${m.addr}:${PORT}`, "--auth-token-file", tokens, "--ping-interval", "1000", "--pong-timeout", "3000", "--drain-timeout", String(DRAIN_TIMEOUT_MS), "--log-level", "info"],
    { ...process.env, A4AA_TEST_MARKER: nodeMarker },
    ["ip", "netns", "exec", m.ns],
  );
  return { name, proc, url: "", marker: nodeMarker };
}

interface TurnResult {
  stopReason?: string;
  error?: Error;
  chunks: string[];
  ms: number;
}

const slow = (n: number) => Array.from({ length: n }, (_, i) => `chunk ${i + 1} `);

/** One `/slow n` turn of the example agent (n chunks, 100 ms apart), read as an application reads it. */
async function turn(p: Placement, n: number, started: () => void = () => undefined): Promise<TurnResult> {
  const t0 = Date.now();
  const chunks: string[] = [];
  try {
    for await (const item of p.client.promptStream({ sessionId: p.sessionId, text: `/slow ${n}` })) {
      if (item instanceof TurnEnd) return { stopReason: item.outcome?.stopReason, chunks, ms: Date.now() - t0 };
      if (item.type === "messageChunk" && chunks.push(item.text) === 1) started();
    }
    return { chunks, error: new Error("the stream ended before the turn's end"), ms: Date.now() - t0 };
  } catch (e) {
    return { chunks, error: e as Error, ms: Date.now() - t0 };
  }
}

/** Turns on every placement; `started` resolves once each has streamed its first chunk. */
function turns(ps: Placement[], n: number): { started: Promise<void>; done: Promise<TurnResult[]> } {
  let left = ps.length;
  let allStarted!: () => void;
  const started = new Promise<void>((r) => (allStarted = r));
  if (!left) allStarted();
  const done = Promise.all(ps.map((p) => turn(p, n, () => --left === 0 && allStarted())));
  return { started, done };
}

function assertFinished(results: TurnResult[], n: number, what: string): void {
  results.forEach((r, i) => {
    assert.equal(r.error, undefined, `${what} #${i}: ${r.error?.message}`);
    assert.equal(r.stopReason, "endTurn", `${what} #${i}`);
    assert.deepEqual(r.chunks, slow(n), `${what} #${i}: every chunk once, in order`);
  });
}

/** Every process of a sidecar's tree now: itself, its guard, its agents. */
function treeOf(pid: number): ProcInfo[] {
  const self = readProc(pid);
  return self ? [self, ...descendants(pid)] : [];
}

const count = (ps: Placement[]) => Object.fromEntries(fleet.nodes.map((n) => [n.name, ps.filter((p) => p.sidecar.url === n.url).length]));

async function until(pred: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("30 sessions of the example agent are spread over three sidecars in three namespaces by their /readyz and /metrics", { skip }, async () => {
  fleet.nodes = ["s1", "s2", "s3"].map(startNode);
  for (const n of fleet.nodes) n.url = await n.proc.url();
  say(`sidecars: ${fleet.nodes.map((n) => `${n.name} ${n.url} pid ${n.proc.proc.pid}`).join(", ")}`);
  fleet.scheduler = new FleetScheduler(
    fleet.nodes.map((n) => n.url),
    {
      token: TOKEN,
      pollMs: 200,
      httpTimeoutMs: 1000,
      client: {
        pingIntervalMs: 1000,
        pongTimeoutMs: 3000,
        connectTimeoutMs: 4000,
        reconnect: { maxAttempts: 8, maxTimeMs: 25_000, maxDelayMs: 2000 },
        onLog: (t) => say(`client: ${t}`),
      },
    },
  );
  await fleet.scheduler.start();
  assert.deepEqual(
    fleet.scheduler.sidecars.map((s) => s.state),
    ["ready", "ready", "ready"],
    fleet.scheduler.sidecars.map((s) => s.why).join("; "),
  );
  const t0 = Date.now();
  fleet.placements = await Promise.all(Array.from({ length: 30 }, () => fleet.scheduler.open({ spec, cwd: dir })));
  say(`30 opens across the fleet in ${Date.now() - t0} ms: ${JSON.stringify(count(fleet.placements))}`);
  assert.deepEqual(count(fleet.placements), { s1: 10, s2: 10, s3: 10 });
  await fleet.scheduler.poll();
  assert.deepEqual(
    fleet.scheduler.sidecars.map((s) => s.sessions),
    [10, 10, 10],
    "each sidecar's a4aa_sessions says 10",
  );
  const { done } = turns(fleet.placements, 3);
  assertFinished(await done, 3, "first turn");
});

test("(a) a sidecar's link is cut for 10 s mid-turn: it detaches the sessions, the turns go on, new opens go elsewhere; restored, the host catches up with every event once", { skip }, async () => {
  const cut = on("s1");
  const others = [...on("s2").slice(0, 3), ...on("s3").slice(0, 3)];
  const long = turns(cut, 150); // 15 s
  await long.started;
  setLink(topology!, "s1", false);
  const cutAt = Date.now();
  say(`s1's link cut with ${cut.length} turns in flight`);
  try {
    // The others never notice: their turns run to the end during the cut.
    const meanwhile = turns(others, 10);
    assertFinished(await meanwhile.done, 10, "a turn on s2/s3 during the cut");
    // The scheduler stops placing on s1 once it cannot reach it.
    await until(() => sidecarOf("s1").state === "unreachable", 5000, "the scheduler to see s1 unreachable");
    const fresh = await Promise.all(Array.from({ length: 4 }, () => fleet.scheduler.open({ spec, cwd: dir })));
    assert.deepEqual(fresh.filter((p) => p.sidecar === sidecarOf("s1")), [], "no open went to the cut sidecar");
    fleet.placements.push(...fresh);
    assert.ok(Date.now() - cutAt < CUT_MS, "all of that within the cut");
    await new Promise((r) => setTimeout(r, CUT_MS - (Date.now() - cutAt)));
  } finally {
    setLink(topology!, "s1", true);
  }
  say(`s1's link restored after ${Date.now() - cutAt} ms`);
  const results = await long.done;
  assertFinished(results, 150, "a turn across the cut");
  assert.match(node("s1").proc.stderr, /no pong for 3000 ms; closing it, its sessions detach/, "s1 noticed the silence and detached the sessions");
  assert.ok((await clientOf("s1")).reconnects >= 1, "the host reconnected and attached again");
  say(`turns across the cut ended after ${Math.max(...results.map((r) => r.ms))} ms; s1 client reconnects: ${(await clientOf("s1")).reconnects}`);
  await until(() => sidecarOf("s1").state === "ready", 5000, "the scheduler to see s1 ready again");
});

test("(b) SIGTERM drains a sidecar: /readyz fails first, opens go to the others, its running turns finish, it exits 0 and nothing of it is left; its sessions are placed again", { skip }, async () => {
  const s2 = node("s2");
  const mine = on("s2");
  const running = turns(mine, 30); // 3 s
  await running.started;
  const tree = treeOf(s2.proc.proc.pid!);
  assert.ok(tree.length >= mine.length + 1, `s2's tree: ${tree.length} processes`);
  const sent = Date.now();
  s2.proc.proc.kill("SIGTERM");
  let ready = await fetch(`${httpOf("s2")}/readyz`);
  while (ready.status === 200 && Date.now() - sent < 5000) ready = await fetch(`${httpOf("s2")}/readyz`);
  const flipped = Date.now() - sent;
  assert.equal(ready.status, 503);
  assert.match(await ready.text(), /draining/);
  say(`s2: /readyz 503 ${flipped} ms after SIGTERM, seen from the host's namespace`);
  assert.ok(flipped < 1000, `/readyz turned 503 after ${flipped} ms`);
  // An open sent to it now is refused, retryable; the scheduler takes that and goes elsewhere
  // even before its next poll.
  const refused = await (await clientOf("s2")).sessionOpen({ spec, cwd: dir }).catch((e) => e);
  assert.equal(refused.code, "draining");
  assert.equal(refused.retryable, true);
  const fresh = await Promise.all(Array.from({ length: 6 }, () => fleet.scheduler.open({ spec, cwd: dir })));
  assert.deepEqual(fresh.filter((p) => p.sidecar === sidecarOf("s2")), [], "no open went to the draining sidecar");
  fleet.placements.push(...fresh);
  assertFinished(await running.done, 30, "a turn in flight at SIGTERM");
  assert.deepEqual(await s2.proc.exited, { code: 0, signal: null });
  const took = Date.now() - sent;
  say(`s2 exited 0 ${took} ms after SIGTERM (drain timeout ${DRAIN_TIMEOUT_MS} ms)`);
  assert.ok(took < DRAIN_TIMEOUT_MS, "it left once its turns had ended, not at the drain timeout");
  assert.deepEqual(await waitGone(() => tree.filter(stillRunning).map((p) => p.pid), 5000), [], "nothing of s2's tree is left");
  // Its sessions ended with it (by design): the host opens them again elsewhere.
  const moved = await Promise.all(mine.map((p) => fleet.scheduler.reopen(p)));
  fleet.placements = fleet.placements.filter((p) => !mine.includes(p)).concat(moved);
  assert.deepEqual(moved.filter((p) => p.sidecar === sidecarOf("s2")), []);
  assertFinished(await turns(moved, 3).done, 3, "a turn on a session placed again");
  say(`s2's ${mine.length} sessions placed again: ${JSON.stringify(count(moved))}`);
});

test("(c) SIGKILL: that sidecar's sessions fail, the others never notice, nothing of it is left (guard, agents)", { skip }, async () => {
  const s3 = node("s3");
  const doomed = on("s3");
  const survivors = on("s1");
  const c1 = await clientOf("s1");
  const reconnectsBefore = c1.reconnects;
  const lost = turns(doomed, 100);
  const fine = turns(survivors, 40);
  await Promise.all([lost.started, fine.started]);
  const tree = treeOf(s3.proc.proc.pid!);
  const guard = tree.find((p) => p.pid !== s3.proc.proc.pid && /guard-main\.js/.test(cmdline(p.pid)));
  assert.ok(guard, "s3 runs a guard");
  const killedAt = Date.now();
  s3.proc.proc.kill("SIGKILL");
  assert.deepEqual(await waitGone(() => tree.filter(stillRunning).map((p) => p.pid), 5000), [], "nothing of s3's tree (guard, agents) is left");
  say(`nothing of s3 left ${Date.now() - killedAt} ms after SIGKILL (its tree had ${tree.length} processes: sidecar, guard, agents)`);
  assertFinished(await fine.done, 40, "a turn on s1 while s3 died");
  assert.equal(c1.reconnects, reconnectsBefore, "s1's connection never dropped");
  const failed = await lost.done;
  for (const r of failed) {
    assert.ok(r.error, "a turn on the killed sidecar fails");
    assert.equal((r.error as { code?: string }).code, "peer_closed", r.error.message);
  }
  say(`s3 SIGKILLed: its ${failed.length} turns failed peer_closed ${Date.now() - killedAt} ms after (the client's reconnect bound); s1's ${survivors.length} turns finished`);
  await until(() => sidecarOf("s3").state === "unreachable", 5000, "the scheduler to see s3 unreachable");
  const moved = await Promise.all(doomed.map((p) => fleet.scheduler.reopen(p)));
  fleet.placements = fleet.placements.filter((p) => !doomed.includes(p)).concat(moved);
  assert.deepEqual(count(moved), { s1: doomed.length, s2: 0, s3: 0 });
  assertFinished(await turns(moved, 3).done, 3, "a turn on a session placed again");
});

test("the last sidecar: every session closes, SIGTERM, exit 0; no process of the fleet is left", { skip }, async () => {
  const s1 = node("s1");
  const mine = on("s1");
  await Promise.all(mine.map((p) => fleet.scheduler.close(p)));
  await fleet.scheduler.poll();
  assert.equal(sidecarOf("s1").sessions, 0);
  await fleet.scheduler.stop();
  s1.proc.proc.kill("SIGTERM");
  assert.deepEqual(await s1.proc.exited, { code: 0, signal: null });
  assert.deepEqual(await waitNoProcesses(agentMarker), [], "no agent left");
  for (const n of fleet.nodes) assert.deepEqual(await waitNoProcesses(n.marker), [], `nothing of ${n.name} left`);
});

/** A process's command line, or "" once it is gone. */
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").replace(/\0/g, " ");
  } catch {
    return "";
  }
}
