// §15 durable sessions: R-REMOTE-3 (detach), R-REMOTE-4 (attach and catch-up), R-REMOTE-5
// (several connections), R-REMOTE-6 (operationId), R-REMOTE-7 (slow consumers, heartbeats).
import { test } from "node:test";
import assert from "node:assert/strict";
import { fakeAgentSpec, processesWithMarker, waitNoProcesses } from "../../helpers/sidecar.js";
import { scratchDir } from "../../helpers/tmp.js";
import { WsHost, remoteSetup, type RpcMsg } from "./setup.js";

const { start, marker, hosts } = remoteSetup();
const connect = async (url: string, opts = {}) => {
  const h = await WsHost.connect(url, opts);
  hosts.push(h);
  return h;
};
const cwd = scratchDir("a4aa-remote-s");
const isEvent = (sessionId: string) => (m: RpcMsg) => m.method === "session/event" && m.params.sessionId === sessionId;
const chunkText = (h: WsHost, sessionId: string) =>
  h
    .events(sessionId)
    .filter((e) => e.event.type === "messageChunk")
    .map((e) => e.event.text)
    .join("");

test("R-REMOTE-3, R-REMOTE-4: a dropped connection detaches; the turn goes on; attach replays every missed event once, in order, before live ones", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0"]);
  const url = await s.url();
  const m = marker();
  const a = await connect(url);
  const { sessionId } = await a.request("session/open", { spec: fakeAgentSpec(m), cwd });
  const turn = a.call("session/prompt", { sessionId, text: "slow:40" });
  turn.catch(() => undefined);
  await a.waitFor((x) => isEvent(sessionId)(x) && x.params.event.type === "messageChunk" && x.params.event.text === "5 ");
  a.ws.terminate();
  await a.closed;
  const seenByA = a.events(sessionId);
  const afterSeq = seenByA[seenByA.length - 1]!.seq;

  const b = await connect(url);
  const listed = (await b.request("sessions/list")).sessions;
  assert.equal(listed.length, 1);
  assert.equal(listed[0].attached, 0, "the dropped connection detached");
  assert.equal(listed[0].state, "turn", "the turn goes on without a host");
  const att = await b.call("session/attach", { sessionId, afterSeq });
  assert.equal(att.result.sessionId, sessionId);
  assert.equal(att.result.attached, 1);
  assert.ok(att.result.lastSeq >= afterSeq);
  await b.waitFor((x) => isEvent(sessionId)(x) && x.params.event.type === "messageChunk" && x.params.event.text === "40 ", 20_000);
  // The answer came before any event of the session on this connection.
  const iAnswer = b.received.indexOf(att);
  assert.ok(b.received.slice(0, iAnswer).every((x) => !isEvent(sessionId)(x)));
  const seqs = [...seenByA.map((e) => e.seq), ...b.events(sessionId).map((e) => e.seq)];
  assert.deepEqual(seqs, seqs.map((_, i) => i + 1), "each event exactly once, none missing, in order");
  assert.equal(chunkText(a, sessionId) + chunkText(b, sessionId), Array.from({ length: 40 }, (_, i) => `${i + 1} `).join(""));
  // Any attached connection may prompt and close (once the turn has ended).
  while ((await b.request("sessions/list")).sessions[0].state !== "idle") await new Promise((r) => setTimeout(r, 20));
  assert.equal((await b.request("session/prompt", { sessionId, text: "text:again" })).text, "again");
  // An afterSeq past the end is refused; attaching again is harmless.
  assert.equal((await b.call("session/attach", { sessionId, afterSeq: 10_000 })).error?.data?.code, "invalid_params");
  await b.request("session/close", { sessionId });
  assert.deepEqual(await waitNoProcesses(m), []);
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-3, R-REMOTE-4: a pending permission request waits for an attached host and is sent again on attach; with nobody it fails closed after --permission-timeout", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--permission-timeout", "3000"]);
  const url = await s.url();
  const a = await connect(url);
  const one = (await a.request("session/open", { spec: fakeAgentSpec(marker()), cwd })).sessionId;
  const two = (await a.request("session/open", { spec: fakeAgentSpec(marker()), cwd })).sessionId;
  a.call("session/prompt", { sessionId: one, text: "permission" }).catch(() => undefined);
  a.call("session/prompt", { sessionId: two, text: "permission" }).catch(() => undefined);
  await a.waitFor((x) => x.method === "permission/request" && x.params.sessionId === one);
  await a.waitFor((x) => x.method === "permission/request" && x.params.sessionId === two);
  a.ws.terminate();
  await a.closed;

  const b = await connect(url);
  b.onPermission = () => ({ selected: "yes" });
  const att = await b.call("session/attach", { sessionId: one, afterSeq: 0 });
  assert.equal(att.result.state, "turn");
  const again = await b.waitFor((x) => x.method === "permission/request" && x.params.sessionId === one);
  assert.equal(again.params.toolCallId, "tc-1");
  assert.ok(b.received.indexOf(again) > b.received.indexOf(att), "re-sent after the answer and the catch-up");
  await b.waitFor((x) => isEvent(one)(x) && x.params.event.type === "messageChunk" && x.params.event.text === "outcome:selected:yes");
  const resolved = b.events(one).find((e) => e.event.type === "permissionResolved")!;
  assert.deepEqual([resolved.event.outcome, resolved.event.decidedBy], ["selected", "host"]);

  // Nobody attaches to `two`: the request fails closed at --permission-timeout (3 s).
  const c = await connect(url);
  await new Promise((r) => setTimeout(r, 3500));
  await c.request("session/attach", { sessionId: two, afterSeq: 0 });
  await c.waitFor((x) => isEvent(two)(x) && x.params.event.type === "messageChunk" && x.params.event.text === "outcome:cancelled");
  const r2 = c.events(two).find((e) => e.event.type === "permissionResolved")!;
  assert.deepEqual([r2.event.outcome, r2.event.decidedBy], ["cancelled", "policy"]);
  assert.ok(!c.received.some((x) => x.method === "permission/request"), "a request already decided is not sent again");
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-3: a session nobody is attached to for --detach-ttl is closed, its processes ended", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--detach-ttl", "2000"]);
  const url = await s.url();
  const m = marker();
  const a = await connect(url);
  const keep = (await a.request("session/open", { spec: fakeAgentSpec(m), cwd })).sessionId;
  await a.request("session/detach", { sessionId: keep });
  assert.equal((await a.request("sessions/list")).sessions[0].attached, 0);
  assert.equal(processesWithMarker(m).length, 1);
  assert.deepEqual(await waitNoProcesses(m, 10_000), [], "the abandoned session's agent was stopped");
  // The agent is gone first; the session leaves the list once its close has finished.
  let left = (await a.request("sessions/list")).sessions;
  for (const deadline = Date.now() + 5000; left.length && Date.now() < deadline; left = (await a.request("sessions/list")).sessions) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(left, []);
  assert.equal((await a.call("session/attach", { sessionId: keep })).error?.data?.code, "unknown_session");
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-5: several connections on one session: events to each, a permission request to each, the first answer decides, the others get permission/settled", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0"]);
  const url = await s.url();
  const a = await connect(url);
  const b = await connect(url);
  const { sessionId } = await a.request("session/open", { spec: fakeAgentSpec(marker()), cwd });
  assert.equal((await b.request("session/attach", { sessionId })).attached, 2);
  b.onPermission = () => ({ selected: "no" });
  const outcome = await a.request("session/prompt", { sessionId, text: "permission" });
  assert.equal(outcome.text, "outcome:selected:no");
  const askA = await a.waitFor((x) => x.method === "permission/request");
  await b.waitFor((x) => x.method === "permission/request");
  const settled = await a.waitFor((x) => x.method === "permission/settled");
  assert.deepEqual(settled.params, { sessionId, toolCallId: "tc-1", outcome: "selected", optionId: "no", decidedBy: "host" });
  assert.ok(!b.received.some((x) => x.method === "permission/settled"), "the connection that decided gets no settled");
  // A late answer is ignored.
  a.send({ jsonrpc: "2.0", id: askA.id, result: { selected: "yes" } });
  assert.equal((await b.request("session/prompt", { sessionId, text: "text:b" })).text, "b");
  const seqA = a.events(sessionId).map((e) => e.seq);
  await b.waitFor((x) => isEvent(sessionId)(x) && x.params.seq === seqA[seqA.length - 1]);
  assert.deepEqual(b.events(sessionId).map((e) => e.seq), seqA, "both connections see the same events");
  assert.ok(seqA.length >= 4);
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-6: an operationId repeated within 10 minutes opens or prompts nothing new and gets the first result; other params fail operation_conflict", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0"]);
  const url = await s.url();
  const m = marker();
  const a = await connect(url);
  const b = await connect(url);
  const open = { spec: fakeAgentSpec(m), cwd, operationId: "open-1" };
  const [r1, r2] = await Promise.all([a.request("session/open", open), a.request("session/open", open)]);
  assert.equal(r1.sessionId, r2.sessionId);
  assert.deepEqual(await b.request("session/open", open), r1, "the same tenant on another connection");
  assert.equal(processesWithMarker(m).length, 1, "one agent process");
  const conflict = await a.call("session/open", { ...open, cwd: "/" });
  assert.equal(conflict.error?.data?.code, "operation_conflict");
  const { sessionId } = r1;
  const p = { sessionId, text: "slow:6", operationId: "turn-1" };
  const first = a.request("session/prompt", p);
  await a.waitFor((x) => isEvent(sessionId)(x) && x.params.event.type === "messageChunk");
  const second = a.request("session/prompt", p);
  assert.deepEqual(await second, await first, "the repeat waited for the running turn's result");
  assert.equal((await first).text, "1 2 3 4 5 6 ");
  assert.equal(chunkText(a, sessionId), "1 2 3 4 5 6 ", "the turn ran once");
  assert.equal((await a.call("session/prompt", { ...p, text: "slow:1" })).error?.data?.code, "operation_conflict");
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-7: a connection past its outbound bound is closed 1013 slow_consumer, stalls neither the agent nor the others, and catches up by attach", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--max-outbound", "262144"]);
  const url = await s.url();
  const a = await connect(url);
  const slow = await connect(url);
  const { sessionId } = await a.request("session/open", { spec: fakeAgentSpec(marker()), cwd });
  await slow.request("session/attach", { sessionId });
  // The slow host stops reading.
  const sock = (slow.ws as any)._socket as import("node:net").Socket;
  sock.pause();
  const outcome = await a.request("session/prompt", { sessionId, text: "big:8;text:done" });
  assert.equal(outcome.text.length, 8 * 1024 * 1024 + 4, "the fast host got the whole turn");
  await waitForText(() => s.stderr, /slow_consumer/);
  sock.resume();
  const closed = await slow.closed;
  assert.deepEqual(closed, { code: 1013, reason: "slow_consumer" });
  const c = await connect(url);
  await c.request("session/attach", { sessionId, afterSeq: 0 });
  const last = a.events(sessionId).at(-1)!.seq;
  await c.waitFor((x) => isEvent(sessionId)(x) && x.params.seq === last);
  assert.equal(chunkText(c, sessionId).length, 8 * 1024 * 1024 + 4);
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-7: the sidecar pings; a connection that sends no pong within the timeout is closed and its sessions detach", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--ping-interval", "200", "--pong-timeout", "1500", "--log-level", "info"]);
  const url = await s.url();
  const live = await connect(url);
  let pings = 0;
  live.ws.on("ping", () => pings++);
  // The session opens on the live connection (an agent's start can outlast the pong timeout
  // on a loaded machine); the mute one only attaches, which is answered at once.
  const { sessionId } = await live.request("session/open", { spec: fakeAgentSpec(marker()), cwd });
  await live.request("session/detach", { sessionId });
  const mute = await connect(url, { autoPong: false });
  const t0 = Date.now();
  await mute.request("session/attach", { sessionId });
  await mute.closed;
  assert.ok(Date.now() - t0 < 10_000);
  await waitForText(() => s.stderr, /no pong for 1500 ms/);
  assert.ok(pings >= 3, `the live connection was pinged (${pings})`);
  assert.equal((await live.request("ping")).protocol, "a4aa.v1", "a connection that answers pings stays");
  assert.equal((await live.request("sessions/list")).sessions.find((x: any) => x.sessionId === sessionId).attached, 0);
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

async function waitForText(get: () => string, re: RegExp, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!re.test(get())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`no ${re} in ${get()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
