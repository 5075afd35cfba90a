// §15 fleet operations: R-REMOTE-8 (/healthz, /readyz, /metrics on every ws listener) and
// R-REMOTE-9 (SIGTERM drains a listening sidecar; --max-sessions). Real sidecars on loopback,
// the fake ACP agent behind them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fakeAgentSpec, waitNoProcesses } from "../../helpers/sidecar.js";
import { scratchDir } from "../../helpers/tmp.js";
import { WsHost, remoteSetup, type ListeningSidecar } from "./setup.js";

const { start, marker, hosts } = remoteSetup();
const connect = async (url: string, opts = {}) => {
  const h = await WsHost.connect(url, opts);
  hosts.push(h);
  return h;
};
const cwd = scratchDir("a4aa-remote-f");
const httpBase = (wsUrl: string) => wsUrl.replace(/^ws:/, "http:").replace(/(:\d+).*$/, "$1");

async function get(s: ListeningSidecar, p: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; type: string | null }> {
  const r = await fetch(httpBase(await s.url()) + p, { headers });
  return { status: r.status, text: await r.text(), type: r.headers.get("content-type") };
}

/** One sample of the Prometheus text (`name{labels}` exactly as written), or undefined. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(series + " ")) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

async function metrics(s: ListeningSidecar): Promise<string> {
  const r = await get(s, "/metrics");
  assert.equal(r.status, 200);
  return r.text;
}

/** Polls /metrics until `series` has `value` (the facts move with events we cannot await from outside). */
async function metricBecomes(s: ListeningSidecar, series: string, value: number, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: number | undefined;
  while (Date.now() < until) {
    last = sample(await metrics(s), series);
    if (last === value) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`${series} stayed ${last}, expected ${value}`);
}

test("R-REMOTE-8: /healthz and /readyz answer 200 while serving; every other path is 404; the WebSocket path says upgrade", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0/a4aa"]);
  assert.equal((await get(s, "/healthz")).status, 200);
  assert.equal((await get(s, "/readyz")).status, 200);
  const m = await get(s, "/metrics");
  assert.equal(m.status, 200, "a loopback listener without tokens serves /metrics");
  assert.match(m.type ?? "", /^text\/plain; version=0\.0\.4/);
  for (const p of ["/", "/nope", "/healthz/x", "/metricsx", "/a4aa/healthz"]) assert.equal((await get(s, p)).status, 404, p);
  assert.equal((await get(s, "/a4aa")).status, 426);
  const post = await fetch(httpBase(await s.url()) + "/healthz", { method: "POST" });
  assert.equal(post.status, 405);
  // The WebSocket path still upgrades.
  const h = await connect(await s.url());
  assert.equal((await h.request("ping")).protocol, "a4aa.v1");
});

test("R-REMOTE-8: /metrics needs the bearer token (401 without or with a wrong one, 200 with); no token appears in it; --metrics-public opens it", async () => {
  const dir = scratchDir("a4aa-remote-ft");
  const file = path.join(dir, "tokens");
  const alice = "alice-token-0123456789abcdef";
  writeFileSync(file, `alice:${alice}\n`);
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", file]);
  assert.equal((await get(s, "/metrics")).status, 401);
  assert.equal((await get(s, "/metrics", { authorization: "Bearer wrong-token-0123456789abcdef" })).status, 401);
  assert.equal((await get(s, "/healthz")).status, 200, "/healthz needs no token");
  assert.equal((await get(s, "/readyz")).status, 200, "/readyz needs no token");
  const h = await connect(await s.url(), { headers: { authorization: `Bearer ${alice}` } });
  const { sessionId } = await h.request("session/open", { spec: fakeAgentSpec(marker()), cwd });
  const ok = await get(s, "/metrics", { authorization: `Bearer ${alice}` });
  assert.equal(ok.status, 200);
  assert.equal(sample(ok.text, 'a4aa_sessions{state="idle"}'), 1);
  assert.ok(!ok.text.includes(alice) && !ok.text.includes("alice"), "neither the token nor the tenant is in the metrics");
  await h.request("session/close", { sessionId });

  const p = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", file, "--metrics-public"]);
  assert.equal((await get(p, "/metrics")).status, 200);
  assert.equal((await get(p, "/nope")).status, 404);
});

test("R-REMOTE-8: metric values move as connections come, sessions open and close, turns run and fail", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0"]);
  const m = marker();
  let t = await metrics(s);
  assert.equal(sample(t, "a4aa_connections"), 0);
  assert.equal(sample(t, 'a4aa_sessions{state="idle"}'), 0);
  assert.equal(sample(t, "a4aa_open_duration_seconds_count"), 0);
  const h = await connect(await s.url());
  await metricBecomes(s, "a4aa_connections", 1);
  const { sessionId } = await h.request("session/open", { spec: fakeAgentSpec(m), cwd });
  t = await metrics(s);
  assert.equal(sample(t, 'a4aa_sessions{state="idle"}'), 1);
  assert.equal(sample(t, "a4aa_open_duration_seconds_count"), 1);
  assert.ok(sample(t, "a4aa_open_duration_seconds_sum")! > 0);
  assert.ok(sample(t, "a4aa_agent_processes")! >= 1);

  // A turn in flight, then its duration, events and tokens.
  const turn = h.request("session/prompt", { sessionId, text: "slow:10" });
  await h.waitFor((x) => x.method === "session/event" && x.params.event.type === "messageChunk");
  t = await metrics(s);
  assert.equal(sample(t, "a4aa_turns_in_flight"), 1);
  assert.equal(sample(t, 'a4aa_sessions{state="turn"}'), 1);
  await turn;
  t = await metrics(s);
  assert.equal(sample(t, "a4aa_turns_in_flight"), 0);
  assert.equal(sample(t, "a4aa_turn_duration_seconds_count"), 1);
  assert.ok(sample(t, "a4aa_turn_duration_seconds_sum")! >= 0.4, "slow:10 takes 10 × 50 ms");
  assert.equal(sample(t, 'a4aa_events_total{type="messageChunk"}'), 10);
  await h.request("session/prompt", { sessionId, text: "usage" });
  t = await metrics(s);
  assert.equal(sample(t, 'a4aa_tokens_total{agent="fake",kind="input"}'), 100);
  assert.equal(sample(t, 'a4aa_tokens_total{agent="fake",kind="output"}'), 20);
  assert.equal(sample(t, "a4aa_turn_duration_seconds_count"), 2);

  // Errors by code.
  assert.equal((await h.call("session/prompt", { sessionId: "nope-1", text: "x" })).error?.data?.code, "unknown_session");
  assert.equal((await h.call("session/open", { cwd })).error?.data?.code, "invalid_params");
  t = await metrics(s);
  assert.equal(sample(t, 'a4aa_errors_total{code="unknown_session"}'), 1);
  assert.equal(sample(t, 'a4aa_errors_total{code="invalid_params"}'), 1);

  await h.request("session/close", { sessionId });
  t = await metrics(s);
  assert.equal(sample(t, 'a4aa_sessions{state="idle"}'), 0);
  assert.deepEqual(await waitNoProcesses(m), []);
  await metricBecomes(s, "a4aa_agent_processes", 0);
  await h.close();
  await metricBecomes(s, "a4aa_connections", 0);
});

test("R-REMOTE-9: SIGTERM drains: /readyz 503 within 100 ms, session/open fails draining (retryable), the running turn finishes, then the sidecar exits 0", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--drain-timeout", "20000"]);
  const m = marker();
  const h = await connect(await s.url());
  const { sessionId } = await h.request("session/open", { spec: fakeAgentSpec(m), cwd });
  const turn = h.request("session/prompt", { sessionId, text: "slow:20" });
  await h.waitFor((x) => x.method === "session/event" && x.params.event.type === "messageChunk");
  const sent = Date.now();
  s.proc.kill("SIGTERM");
  let ready = await get(s, "/readyz");
  while (ready.status === 200 && Date.now() - sent < 2000) ready = await get(s, "/readyz");
  const flipped = Date.now() - sent;
  assert.equal(ready.status, 503);
  assert.match(ready.text, /draining/);
  assert.ok(flipped < 100, `/readyz turned 503 after ${flipped} ms`);
  assert.equal((await get(s, "/healthz")).status, 200, "still serving while draining");
  assert.equal(sample(await metrics(s), "a4aa_draining"), 1);
  const refused = await h.call("session/open", { spec: fakeAgentSpec(m), cwd });
  assert.equal(refused.error?.data?.code, "draining");
  assert.equal(refused.error?.data?.retryable, true);
  const outcome = await turn;
  assert.equal(outcome.stopReason, "endTurn", "the turn in flight finished");
  assert.equal(h.events(sessionId).filter((e) => e.event.type === "messageChunk").length, 20);
  const exit = await s.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(Date.now() - sent < 10_000, "it exits once no turn runs, not at the drain timeout");
  assert.deepEqual(await waitNoProcesses(m), []);
});

test("R-REMOTE-9: a turn longer than --drain-timeout is ended when it runs out; every session closes and the sidecar exits 0", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--drain-timeout", "300"]);
  const m = marker();
  const h = await connect(await s.url());
  const { sessionId } = await h.request("session/open", { spec: fakeAgentSpec(m), cwd });
  h.call("session/prompt", { sessionId, text: "slow:200" }).catch(() => undefined);
  await h.waitFor((x) => x.method === "session/event" && x.params.event.type === "messageChunk");
  const sent = Date.now();
  s.proc.kill("SIGTERM");
  const exit = await s.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
  const took = Date.now() - sent;
  assert.ok(took >= 300 && took < 8000, `exited after ${took} ms (drain timeout 300, the turn would take 10 s)`);
  // The connection closes with the sidecar; the turn's answer, if it made it, says cancelled.
  await h.closed;
  const r = h.received.find((x) => x.id !== undefined && x.method === undefined && x.result?.stopReason !== undefined);
  if (r) assert.equal(r.result.stopReason, "cancelled");
  assert.deepEqual(await waitNoProcesses(m), []);
});

test("R-REMOTE-9: a second signal while draining closes at once", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--drain-timeout", "60000"]);
  const m = marker();
  const h = await connect(await s.url());
  const { sessionId } = await h.request("session/open", { spec: fakeAgentSpec(m), cwd });
  h.call("session/prompt", { sessionId, text: "slow:400" }).catch(() => undefined);
  await h.waitFor((x) => x.method === "session/event" && x.params.event.type === "messageChunk");
  s.proc.kill("SIGTERM");
  while ((await get(s, "/readyz")).status === 200);
  const second = Date.now();
  s.proc.kill("SIGTERM");
  const exit = await s.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(Date.now() - second < 8000, "closed without waiting for the turn (20 s) or the drain timeout (60 s)");
  assert.match(s.stderr, /again while draining/);
  assert.deepEqual(await waitNoProcesses(m), []);
});

test("R-REMOTE-9: --max-sessions N: opens beyond N fail at_capacity (retryable) and /readyz is 503 while at capacity", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--max-sessions", "1"]);
  const m = marker();
  const h = await connect(await s.url());
  assert.equal((await get(s, "/readyz")).status, 200);
  const { sessionId } = await h.request("session/open", { spec: fakeAgentSpec(m), cwd });
  const ready = await get(s, "/readyz");
  assert.equal(ready.status, 503);
  assert.match(ready.text, /at_capacity/);
  const refused = await h.call("session/open", { spec: fakeAgentSpec(m), cwd });
  assert.equal(refused.error?.data?.code, "at_capacity");
  assert.equal(refused.error?.data?.retryable, true);
  assert.match(refused.error?.data?.detail ?? "", /--max-sessions/);
  await h.request("session/close", { sessionId });
  assert.equal((await get(s, "/readyz")).status, 200);
  const again = await h.request("session/open", { spec: fakeAgentSpec(m), cwd });
  await h.request("session/close", { sessionId: again.sessionId });
  assert.deepEqual(await waitNoProcesses(m), []);
});
