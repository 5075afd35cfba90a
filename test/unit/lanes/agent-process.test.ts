// The agent process the JSON-RPC lanes share, against a real child that speaks NDJSON
// JSON-RPC: error answers mapped once, death (exit, oversized line) failing what is
// pending, requests abandoned when the session closes, and the stop.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent, AgentSpec } from "../../../generated/ts/types.js";
import { A4aaError } from "../../../src/errors.js";
import { AgentProcess, fromPeerError, openAgentProcess } from "../../../src/lanes/agent-process.js";
import type { LaneContext } from "../../../src/lanes/lane.js";
import { createLogger } from "../../../src/log.js";
import { RpcResponseError } from "../../../src/transport/json-rpc.js";
import { FlowGate } from "../../../src/transport/flow-gate.js";
import { newMarker, processesWithMarker, waitGone } from "../../helpers/procs.js";

// Answers `echo` with its params, `refuse` with an error, never answers `hang`; `exit`
// ends the process, `big` prints a line longer than the test's limit.
const AGENT = String.raw`
const rl = require("node:readline").createInterface({ input: process.stdin });
rl.on("line", (l) => {
  const m = JSON.parse(l);
  const send = (o) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...o }) + "\n");
  if (m.method === "echo") send({ id: m.id, result: m.params });
  else if (m.method === "refuse") send({ id: m.id, error: { code: -32000, message: "not today" } });
  else if (m.method === "notify") send({ method: "hello", params: { n: 1 } });
  else if (m.method === "exit") process.exit(3);
  else if (m.method === "big") process.stdout.write("x".repeat(4096) + "\n");
});
`;

function setup(o: { onEnd?: (e: A4aaError) => void } = {}) {
  const marker = newMarker();
  const events: AgentEvent[] = [];
  const notes: [string, unknown][] = [];
  const lifetime = new AbortController();
  const ctx: LaneContext = {
    sessionId: "s1",
    spec: { id: "t", lane: "acp", command: { program: process.execPath, args: ["-e", AGENT], env: { policy: "sanitized" } } } as AgentSpec,
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "", A4AA_TEST_MARKER: marker },
    options: { permission: "ask" },
    clientName: "a4aa",
    clientVersion: "0",
    maxOutputBytes: 1024,
    logger: createLogger("error", () => undefined),
    gate: new FlowGate(),
    emit: (e) => events.push(e),
    askPermission: async () => ({ outcome: "cancelled" }),
    signal: lifetime.signal,
  };
  const open = () =>
    openAgentProcess(ctx, (proc) => {
      const agent = new AgentProcess(ctx, proc, {
        name: "the test agent",
        requireVersion: false,
        writeVersion: true,
        onRequest: () => null,
        onNotification: (method, params) => notes.push([method, params]),
        inTurn: () => true,
        onEnd: o.onEnd,
      });
      return { agent, handshake: async () => undefined, close: () => agent.close() };
    });
  return { ctx, events, notes, lifetime, marker, open };
}

const refused = (e: RpcResponseError) => new A4aaError("initialize_failed", "initialize", `refused: ${e.message}`);

test("an error answer becomes the lane's A4aaError through one mapping; results and notifications pass", async () => {
  const { open, notes, marker } = setup();
  const { agent } = await open();
  assert.deepEqual(await agent.request("echo", { a: 1 }, "prompt", refused), { a: 1 });
  await assert.rejects(agent.request("refuse", {}, "prompt", refused), (e: A4aaError) => e.code === "initialize_failed" && /refused: refuse: not today \(-32000\)/.test(e.message));
  // Without a mapping the peer's error goes up as it is.
  await assert.rejects(agent.request("refuse", {}, "prompt"), RpcResponseError);
  agent.notify("notify");
  await agent.request("echo", null, "prompt");
  assert.deepEqual(notes, [["hello", { n: 1 }]]);
  assert.deepEqual(await agent.close(), { clean: true });
  assert.deepEqual(await waitGone(() => processesWithMarker(marker)), []);
});

test("fromPeerError maps only a peer's error answer", () => {
  const other = new Error("io");
  assert.equal(fromPeerError(other, refused), other);
  const mapped = fromPeerError(new RpcResponseError("m", { code: 1, message: "x" }), refused);
  assert.ok(mapped instanceof A4aaError && mapped.code === "initialize_failed");
});

test("R-SUP-2: the agent exiting during the handshake fails what is pending with spawn_failed, naming it", async () => {
  const ends: A4aaError[] = [];
  const { open, marker } = setup({ onEnd: (e) => ends.push(e) });
  const { agent } = await open();
  const pending = agent.request("hang", {}, "initialize");
  agent.notify("exit");
  await assert.rejects(pending, (e: A4aaError) => e.code === "spawn_failed" && /the test agent exited with code 3/.test(e.message));
  assert.equal(agent.alive, false);
  assert.equal(ends[0]?.code, "spawn_failed");
  // Later calls fail at once with the same error.
  await assert.rejects(agent.request("echo", {}, "prompt"), (e: A4aaError) => e.code === "spawn_failed");
  await agent.close();
  assert.deepEqual(await waitGone(() => processesWithMarker(marker)), []);
});

test("after the handshake an exit is agent_exited; an oversized line is output_limit and stops the agent", async () => {
  for (const [trigger, code] of [["exit", "agent_exited"], ["big", "output_limit"]] as const) {
    const { open, marker } = setup();
    const { agent } = await open();
    agent.phase = "ready";
    const pending = agent.request("hang", {}, "prompt");
    agent.notify(trigger);
    await assert.rejects(pending, (e: A4aaError) => e.code === code && e.stage === "prompt", trigger);
    assert.deepEqual(await waitGone(() => processesWithMarker(marker)), [], `${trigger}: the agent is gone`);
    await agent.close();
  }
});

test("a handshake request is abandoned when the session closes (session_closed, stage open); a turn's request is not", async () => {
  const ends: A4aaError[] = [];
  const { open, lifetime, marker } = setup({ onEnd: (e) => ends.push(e) });
  const { agent } = await open();
  const handshake = agent.request("hang", {}, "initialize");
  const turn = agent.request("hang", {}, "prompt");
  lifetime.abort(new Error("closing"));
  await assert.rejects(handshake, (e: A4aaError) => e.code === "session_closed" && e.stage === "open" && /while the test agent was starting/.test(e.message));
  const closed = await agent.close();
  assert.deepEqual(closed, { clean: true });
  await assert.rejects(turn, (e: A4aaError) => e.code === "session_closed" && e.stage === "close");
  assert.equal(ends.at(-1)?.code, "session_closed");
  assert.equal(agent.alive, false);
  assert.deepEqual(await waitGone(() => processesWithMarker(marker)), []);
});

test("a failed handshake stops the agent before the error goes up", async () => {
  const { ctx, marker } = setup();
  let agent: AgentProcess | undefined;
  await assert.rejects(
    openAgentProcess(ctx, (proc) => {
      agent = new AgentProcess(ctx, proc, { name: "x", requireVersion: false, writeVersion: true, onRequest: () => null, onNotification: () => undefined, inTurn: () => false });
      const a = agent;
      return { handshake: () => a.request("refuse", {}, "initialize", refused).then(() => undefined), close: () => a.close() };
    }),
    (e: A4aaError) => e.code === "initialize_failed",
  );
  assert.equal(agent!.alive, false);
  assert.deepEqual(await waitGone(() => processesWithMarker(marker)), []);
});
