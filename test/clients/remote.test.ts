// R-REMOTE-10: the TypeScript client over a WebSocket (`connect(url, {token})`), against a
// real `a4aa serve --listen` on loopback behind a TCP proxy the test cuts at will.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { writeFileSync } from "node:fs";
import { A4aaError, TurnEnd, connect, type AgentEvent, type RemoteClient, type RemoteOptions, type StreamItem } from "../../clients/ts/index.js";
import { fakeAgentSpec, processesWithMarker, waitNoProcesses } from "../helpers/sidecar.js";
import { scratchDir } from "../helpers/tmp.js";
import { remoteSetup } from "../integration/remote/setup.js";
import { rejection } from "./helpers.js";
import { proxyTo } from "../helpers/cut-proxy.js";

const { start, marker } = remoteSetup();
const dir = scratchDir("a4aa-ts-remote");
const cwd = dir;
const TOKEN = "s3cret-token-for-tests";
const tokens = path.join(dir, "tokens");
writeFileSync(tokens, `alice:${TOKEN}\n`);

async function remote(url: string, opts: RemoteOptions = {}): Promise<{ c: RemoteClient; logs: string[] }> {
  const logs: string[] = [];
  const c = await connect(url, { token: TOKEN, onLog: (t) => logs.push(t), reconnect: { initialDelayMs: 20, maxDelayMs: 200 }, ...opts });
  return { c, logs };
}

const isChunk = (e: StreamItem): e is Extract<AgentEvent, { type: "messageChunk" }> => e.type === "messageChunk";

test("R-REMOTE-10: connections cut mid-turn three times: every event delivered once in seq order, one outcome, the turn run once; a request without operationId fails peer_closed with uncertainEffect", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", tokens]);
  const proxy = await proxyTo(await s.url());
  const { c, logs } = await remote(proxy.url);
  try {
    const m = marker();
    const { sessionId } = await c.sessionOpen({ spec: fakeAgentSpec(m), cwd });
    const other = (await c.sessionOpen({ spec: fakeAgentSpec(m), cwd })).sessionId;
    // A prompt sent with call() goes as it is: no operationId.
    const bare = c.call("session/prompt", { sessionId: other, text: "slow:200" });
    bare.catch(() => undefined);
    const otherEvents = c.events(other);
    for (let e = await otherEvents.next(); e && !isChunk(e); e = await otherEvents.next());

    const seen: StreamItem[] = [];
    const cuts = new Set([5, 15, 25]);
    let chunks = 0;
    for await (const item of c.promptStream({ sessionId, text: "slow:40" })) {
      seen.push(item);
      if (isChunk(item) && cuts.has(++chunks)) proxy.cut();
    }
    const bareErr = await rejection(bare);
    assert.equal(bareErr.code, "peer_closed");
    assert.equal(bareErr.uncertainEffect, true, "it was sent: the turn may have run");
    assert.match(bareErr.message, /no operationId/);

    assert.ok(c.reconnects >= 3, `reconnected after each cut (${c.reconnects}; ${logs.join(" | ")})`);
    assert.ok(proxy.accepted() >= 4);
    const ends = seen.filter((e): e is TurnEnd => e instanceof TurnEnd);
    assert.equal(ends.length, 1, "the outcome once");
    assert.equal(ends[0]!.outcome?.stopReason, "endTurn");
    const text = seen.filter(isChunk).map((e) => e.text).join("");
    assert.equal(text, Array.from({ length: 40 }, (_, i) => `${i + 1} `).join(""), "every chunk once, in order, the turn run once");
    // What the application got is the session's journal, event for event.
    const history = await c.sessionHistory({ sessionId });
    assert.deepEqual(seen.filter((e) => !(e instanceof TurnEnd)), history.events.map((h) => h.event));
    assert.equal(c.knownSessions().get(sessionId), history.lastSeq);
    assert.equal(history.events.filter((h) => h.event.type === "messageChunk").length, 40, "the sidecar ran one turn");

    // The session goes on after the cuts; closing ends its stream.
    assert.equal((await c.prompt(sessionId, "text:after")).text, "after");
    await c.sessionCancel({ sessionId: other });
    await c.sessionClose({ sessionId });
    await c.sessionClose({ sessionId: other });
    assert.deepEqual(await waitNoProcesses(m), []);
  } finally {
    await c.close();
    await proxy.close();
  }
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-10: a permission request pending at the cut is sent again on attach and reaches the handler again; the turn finishes once", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", tokens]);
  const proxy = await proxyTo(await s.url());
  const asked: string[] = [];
  const { c } = await remote(proxy.url, {
    onPermission: (req) => {
      asked.push(req.toolCallId);
      if (asked.length === 1) {
        proxy.cut();
        return new Promise(() => undefined); // this answer is lost with its connection
      }
      return { selected: "yes" };
    },
  });
  try {
    const { sessionId } = await c.sessionOpen({ spec: fakeAgentSpec(marker()), cwd });
    const outcome = await c.prompt(sessionId, "permission");
    assert.equal(outcome.text, "outcome:selected:yes");
    assert.deepEqual(asked, ["tc-1", "tc-1"]);
    assert.equal(c.reconnects, 1);
    const history = await c.sessionHistory({ sessionId });
    assert.equal(history.events.filter((h) => h.event.type === "permissionResolved").length, 1);
    await c.sessionClose({ sessionId });
  } finally {
    await c.close();
    await proxy.close();
  }
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-10: a wrong or missing token fails connect with a clear error and opens nothing", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", tokens]);
  const url = await s.url();
  for (const token of ["wrong", undefined]) {
    const err = await rejection(connect(url, { token }));
    assert.equal(err.code, "peer_closed");
    assert.equal(err.uncertainEffect, false);
    assert.match(err.message, /refused the token \(HTTP 401\)/);
    assert.ok(!err.message.includes(TOKEN));
  }
  const { c } = await remote(url);
  assert.equal((await c.ping()).protocol, "a4aa.v1");
  await c.close();
  await assert.rejects(c.ping(), (e) => e instanceof A4aaError && e.code === "peer_closed");
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-10: reconnecting is bounded: with the sidecar unreachable the client gives up after its attempts, failing what is pending peer_closed and ending the streams", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", tokens]);
  const proxy = await proxyTo(await s.url());
  const { c, logs } = await remote(proxy.url, { reconnect: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 50 } });
  try {
    const { sessionId } = await c.sessionOpen({ spec: fakeAgentSpec(marker()), cwd });
    const turn = c.prompt(sessionId, "slow:200");
    turn.catch(() => undefined);
    const events = c.events(sessionId);
    for (let e = await events.next(); e && !isChunk(e); e = await events.next());
    const t0 = Date.now();
    await proxy.close(); // cuts, and refuses every new connection
    const err = await rejection(turn);
    assert.equal(err.code, "peer_closed");
    assert.match(err.message, /could not reconnect in 3 attempts/);
    assert.equal(err.uncertainEffect, true, "the prompt had been sent");
    assert.ok(Date.now() - t0 < 5000, `gave up within the bound (${Date.now() - t0} ms)`);
    while ((await events.next()) !== undefined);
    await assert.rejects(c.ping(), (e) => e instanceof A4aaError && e.code === "peer_closed" && !e.uncertainEffect);
    assert.ok(logs.some((l) => /reconnecting/.test(l)));
  } finally {
    await c.close();
  }
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-10: cut on every chunk the application reads, during catch-up replays too: still each event once, in order, and one turn", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", tokens]);
  const proxy = await proxyTo(await s.url());
  const { c, logs } = await remote(proxy.url, { reconnect: { maxAttempts: 20, initialDelayMs: 5, maxDelayMs: 40 } });
  try {
    const { sessionId } = await c.sessionOpen({ spec: fakeAgentSpec(marker()), cwd });
    const seen: StreamItem[] = [];
    let chunks = 0;
    for await (const item of c.promptStream({ sessionId, text: "slow:30" })) {
      seen.push(item);
      if (isChunk(item) && ++chunks >= 2 && chunks <= 20) proxy.cut();
    }
    assert.ok(c.reconnects >= 10, `reconnected ${c.reconnects} times (${logs.slice(-3).join(" | ")})`);
    assert.equal(seen.filter(isChunk).map((e) => e.text).join(""), Array.from({ length: 30 }, (_, i) => `${i + 1} `).join(""));
    assert.equal(seen.filter((e) => e instanceof TurnEnd).length, 1);
    const history = await c.sessionHistory({ sessionId });
    assert.deepEqual(seen.filter((e) => !(e instanceof TurnEnd)), history.events.map((h) => h.event));
    await c.sessionClose({ sessionId });
  } finally {
    await c.close();
    await proxy.close();
  }
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-10: a session/open in flight at the cut is sent again with its operationId: one agent, the same session, attached to the new connection", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", tokens]);
  const proxy = await proxyTo(await s.url());
  const { c } = await remote(proxy.url);
  // The agent takes 800 ms to start (a preload that blocks), so the open is still running at the cut.
  const slowStart = path.join(dir, "slow-start.cjs");
  writeFileSync(slowStart, "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 800);\n");
  const m = marker();
  const spec = fakeAgentSpec(m);
  if (spec.lane === "acp") spec.command.args = ["--require", slowStart, ...(spec.command.args ?? [])];
  try {
    const open = c.sessionOpen({ spec, cwd, operationId: "my-open-1" });
    while (processesWithMarker(m).length === 0) await new Promise((r) => setTimeout(r, 10));
    proxy.cut();
    const { sessionId } = await open;
    assert.equal(c.reconnects, 1);
    assert.equal(processesWithMarker(m).length, 1, "one agent: the open ran once");
    assert.deepEqual([...c.knownSessions().keys()], [sessionId]);
    const listed = (await c.sessionsList()).sessions.find((x) => x.sessionId === sessionId);
    assert.equal(listed?.attached, 1, "the new connection is attached");
    assert.equal((await c.prompt(sessionId, "text:hello", { operationId: "my-turn-1" })).text, "hello");
    // The same operationId again: the first result, no second turn.
    assert.equal((await c.prompt(sessionId, "text:hello", { operationId: "my-turn-1" })).text, "hello");
    const history = await c.sessionHistory({ sessionId });
    assert.equal(history.events.filter((h) => h.event.type === "messageChunk").length, 1);
    await c.sessionClose({ sessionId });
    assert.deepEqual(await waitNoProcesses(m), []);
  } finally {
    await c.close();
    await proxy.close();
  }
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-10: a silent connection (nothing forwarded, nothing closed) is taken as lost after pongTimeoutMs; the client reconnects and the turn's events arrive once, in order", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", tokens]);
  const proxy = await proxyTo(await s.url());
  const { c, logs } = await remote(proxy.url, { pingIntervalMs: 100, pongTimeoutMs: 400 });
  try {
    const { sessionId } = await c.sessionOpen({ spec: fakeAgentSpec(marker()), cwd });
    const seen: StreamItem[] = [];
    let frozenAt = 0;
    for await (const item of c.promptStream({ sessionId, text: "slow:30" })) {
      seen.push(item);
      if (isChunk(item) && !frozenAt) {
        proxy.freeze();
        frozenAt = Date.now();
      }
    }
    assert.equal(c.reconnects, 1);
    assert.ok(logs.some((l) => /nothing from .* for 400 ms/.test(l)), logs.join(" | "));
    assert.equal(seen.filter(isChunk).map((e) => e.text).join(""), Array.from({ length: 30 }, (_, i) => `${i + 1} `).join(""));
    assert.equal(seen.filter((e) => e instanceof TurnEnd).length, 1);
    await c.sessionClose({ sessionId });
  } finally {
    await c.close();
    await proxy.close();
  }
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});
