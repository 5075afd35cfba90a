// The Prometheus exporter of the Facts (R-REMOTE-8): `GET /metrics` on every ws/wss
// listener. Its own prom-client Registry (never the global one); gauges and counters read the
// facts when scraped, the histograms observe every duration as it is reported.
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Facts } from "./facts.js";

/** Seconds: a session open is a handshake (tens of ms to a minute), a turn up to hours. */
const OPEN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const TURN_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600];

export class PrometheusExporter {
  readonly registry = new Registry();
  private readonly stop: () => void;

  constructor(facts: Facts) {
    const registers = [this.registry];
    new Gauge({
      name: "a4aa_connections",
      help: "Host connections open now (stdio and every listener's).",
      registers,
      collect() {
        this.set(facts.connections);
      },
    });
    new Gauge({
      name: "a4aa_sessions",
      help: "Sessions held now, by state.",
      labelNames: ["state"],
      registers,
      collect() {
        this.reset();
        for (const state of ["opening", "idle", "turn", "dead", "closing"]) this.set({ state }, 0);
        for (const [state, n] of Object.entries(facts.sessionsByState())) this.set({ state }, n);
      },
    });
    new Gauge({
      name: "a4aa_turns_in_flight",
      help: "Turns running now.",
      registers,
      collect() {
        this.set(facts.turnsInFlight);
      },
    });
    new Gauge({
      name: "a4aa_agent_processes",
      help: "Agent process trees running or starting now.",
      registers,
      collect() {
        this.set(facts.agentProcesses());
      },
    });
    new Gauge({
      name: "a4aa_draining",
      help: "1 while the sidecar drains (SIGTERM received), else 0.",
      registers,
      collect() {
        this.set(facts.draining ? 1 : 0);
      },
    });
    const counter = (name: string, help: string, label: string, read: () => Iterable<[string, number]>) =>
      new Counter({
        name,
        help,
        labelNames: [label],
        registers,
        collect() {
          this.reset();
          for (const [v, n] of read()) this.inc({ [label]: v }, n);
        },
      });
    counter("a4aa_events_total", "Session events the agents produced, by event type.", "type", () => facts.events);
    counter("a4aa_errors_total", "Error responses to hosts, by a4aa error code.", "code", () => facts.errors);
    new Counter({
      name: "a4aa_tokens_total",
      help: "Tokens the agents reported in turn outcomes, by agent spec id and kind.",
      labelNames: ["agent", "kind"],
      registers,
      collect() {
        this.reset();
        for (const [agent, kinds] of facts.tokens) for (const [kind, n] of kinds) this.inc({ agent, kind }, n);
      },
    });
    new Counter({
      name: "a4aa_custody_requests_total",
      help: "Requests the custody proxy forwarded to model APIs (R-CUSTODY-1), by agent spec id.",
      labelNames: ["agent"],
      registers,
      collect() {
        this.reset();
        for (const [agent, t] of facts.custody) this.inc({ agent }, t.requests);
      },
    });
    new Counter({
      name: "a4aa_custody_bytes_total",
      help: "Body bytes the custody proxy carried, by agent spec id and direction (request: to the model API, response: back to the agent).",
      labelNames: ["agent", "direction"],
      registers,
      collect() {
        this.reset();
        for (const [agent, t] of facts.custody) {
          this.inc({ agent, direction: "request" }, t.requestBytes);
          this.inc({ agent, direction: "response" }, t.responseBytes);
        }
      },
    });
    new Counter({
      name: "a4aa_custody_refused_total",
      help: "Requests the custody proxy refused for a missing, unknown or closed session's token (403).",
      registers,
      collect() {
        this.reset();
        this.inc(facts.custodyRefused());
      },
    });
    const open = new Histogram({ name: "a4aa_open_duration_seconds", help: "How long session/open took (successful opens).", buckets: OPEN_BUCKETS, registers });
    const turn = new Histogram({ name: "a4aa_turn_duration_seconds", help: "How long turns took, from session/prompt to its answer.", buckets: TURN_BUCKETS, registers });
    this.stop = facts.onDuration((what, seconds) => (what === "open" ? open : turn).observe(seconds));
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  close(): void {
    this.stop();
  }
}
