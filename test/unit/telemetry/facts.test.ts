// R-REMOTE-8: the facts are counted once and the Prometheus exporter only reads them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Facts } from "../../../src/telemetry/facts.js";
import { PrometheusExporter } from "../../../src/telemetry/prometheus.js";

const line = (text: string, series: string) => text.split("\n").find((l) => l.startsWith(series + " "))?.slice(series.length + 1);

test("R-REMOTE-8: the exporter writes the facts under Prometheus names, counters as _total, durations as histograms in seconds", async () => {
  let procs = 3;
  const facts = new Facts({ agentProcesses: () => procs, sessionsByState: () => ({ idle: 2, turn: 1 }) });
  const prom = new PrometheusExporter(facts);
  facts.connections = 2;
  facts.event("messageChunk");
  facts.event("messageChunk");
  facts.error("unknown_session");
  facts.tokensUsed("claude", "input", 100);
  facts.tokensUsed("claude", "input", 5);
  facts.tokensUsed("claude", "output", 0);
  facts.duration("open", 0.2);
  facts.turnStarted();
  let t = await prom.metrics();
  assert.equal(line(t, "a4aa_connections"), "2");
  assert.equal(line(t, 'a4aa_sessions{state="idle"}'), "2");
  assert.equal(line(t, 'a4aa_sessions{state="turn"}'), "1");
  assert.equal(line(t, 'a4aa_sessions{state="opening"}'), "0", "known states are written even at zero");
  assert.equal(line(t, "a4aa_turns_in_flight"), "1");
  assert.equal(line(t, "a4aa_agent_processes"), "3");
  assert.equal(line(t, 'a4aa_events_total{type="messageChunk"}'), "2");
  assert.equal(line(t, 'a4aa_errors_total{code="unknown_session"}'), "1");
  assert.equal(line(t, 'a4aa_tokens_total{agent="claude",kind="input"}'), "105");
  assert.equal(line(t, 'a4aa_tokens_total{agent="claude",kind="output"}'), undefined, "a zero count adds no series");
  assert.equal(line(t, 'a4aa_open_duration_seconds_bucket{le="0.25"}'), "1");
  assert.equal(line(t, 'a4aa_open_duration_seconds_bucket{le="0.1"}'), "0");
  assert.match(t, /# TYPE a4aa_turn_duration_seconds histogram/);
  assert.match(t, /# TYPE a4aa_events_total counter/);
  // Scraping twice counts nothing twice.
  procs = 0;
  facts.turnEnded(1.5);
  t = await prom.metrics();
  t = await prom.metrics();
  assert.equal(line(t, 'a4aa_events_total{type="messageChunk"}'), "2");
  assert.equal(line(t, "a4aa_turn_duration_seconds_count"), "1");
  assert.equal(line(t, "a4aa_turns_in_flight"), "0");
  assert.equal(line(t, "a4aa_agent_processes"), "0");
  prom.close();
});

test("R-REMOTE-9: readiness: draining or at --max-sessions is not ready; noTurns resolves when the last turn ends", async () => {
  const facts = new Facts({ sessionsByState: () => ({ idle: 2 }) });
  assert.equal(facts.notReady(), undefined);
  facts.maxSessions = 2;
  assert.equal(facts.notReady(), "at_capacity");
  facts.maxSessions = 3;
  assert.equal(facts.notReady(), undefined);
  facts.draining = true;
  assert.equal(facts.notReady(), "draining");
  await facts.noTurns();
  facts.turnStarted();
  facts.turnStarted();
  let done = false;
  const p = facts.noTurns().then(() => (done = true));
  facts.turnEnded(0.1);
  await new Promise((r) => setImmediate(r));
  assert.equal(done, false);
  facts.turnEnded(0.1);
  await p;
  assert.equal(done, true);
});

test("R-CUSTODY-1: what the custody proxy carried, by agent (never by session), and its refusals", async () => {
  let refused = 0;
  const facts = new Facts({ custodyRefused: () => refused });
  const prom = new PrometheusExporter(facts);
  const claude = facts.custodyTraffic("claude-code");
  assert.equal(facts.custodyTraffic("claude-code"), claude, "one running total per agent");
  claude.requests += 2;
  claude.requestBytes += 300;
  claude.responseBytes += 4000;
  refused = 5;
  const t = await prom.metrics();
  assert.equal(line(t, 'a4aa_custody_requests_total{agent="claude-code"}'), "2");
  assert.equal(line(t, 'a4aa_custody_bytes_total{agent="claude-code",direction="request"}'), "300");
  assert.equal(line(t, 'a4aa_custody_bytes_total{agent="claude-code",direction="response"}'), "4000");
  assert.equal(line(t, "a4aa_custody_refused_total"), "5");
  prom.close();
});
