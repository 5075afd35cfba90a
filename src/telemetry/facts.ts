// The sidecar's operational facts (R-REMOTE-8), counted once: the server and the session
// layer report into one Facts; exporters (Prometheus today, OpenTelemetry later) read it and
// never count anything themselves. No fact carries a token, a prompt or an environment value:
// labels are error codes, event types, session states and agent spec ids.

/** What the custody proxy carried (R-CUSTODY-1): for one session, or all of an agent's. */
export interface CustodyTraffic {
  requests: number;
  /** Request bodies sent upstream. */
  requestBytes: number;
  /** Response bodies streamed back to the agent. */
  responseBytes: number;
}

/** What was carried between two readings of the same running total. */
export function trafficSince(before: Readonly<CustodyTraffic>, now: Readonly<CustodyTraffic>): CustodyTraffic {
  return { requests: now.requests - before.requests, requestBytes: now.requestBytes - before.requestBytes, responseBytes: now.responseBytes - before.responseBytes };
}

/** A timed fact: an open or a turn, in seconds. */
export type Duration = "open" | "turn";

export interface FactSources {
  /** Sessions by state now (the session layer's own states). */
  sessionsByState?: () => Record<string, number>;
  /** Agent process trees running or starting now. */
  agentProcesses?: () => number;
  /** Requests the custody proxy refused (403) since it started. */
  custodyRefused?: () => number;
}

export class Facts {
  /** Host connections now (stdio and every listener's). */
  connections = 0;
  /** Turns running now. */
  turnsInFlight = 0;
  /** `--max-sessions`, when set. */
  maxSessions: number | undefined;
  /** SIGTERM was received on a listening sidecar: opens are refused, /readyz is 503. */
  draining = false;
  readonly events = new Map<string, number>();
  readonly errors = new Map<string, number>();
  /** By agent spec id, then by kind (input, output, cachedInput, reasoning). */
  readonly tokens = new Map<string, Map<string, number>>();
  /** By agent spec id: what the custody proxy carried for its sessions. */
  readonly custody = new Map<string, CustodyTraffic>();
  private readonly durationListeners = new Set<(what: Duration, seconds: number) => void>();
  private readonly turnWaiters = new Set<() => void>();

  constructor(readonly sources: FactSources = {}) {}

  sessionsByState(): Record<string, number> {
    return this.sources.sessionsByState?.() ?? {};
  }

  sessions(): number {
    return Object.values(this.sessionsByState()).reduce((a, b) => a + b, 0);
  }

  agentProcesses(): number {
    return this.sources.agentProcesses?.() ?? 0;
  }

  atCapacity(): boolean {
    return this.maxSessions !== undefined && this.sessions() >= this.maxSessions;
  }

  /** Why the sidecar is not ready for new sessions, or undefined when it is. */
  notReady(): string | undefined {
    if (this.draining) return "draining";
    if (this.atCapacity()) return "at_capacity";
    return undefined;
  }

  event(type: string): void {
    bump(this.events, type, 1);
  }

  error(code: string): void {
    bump(this.errors, code, 1);
  }

  /** A turn's usage (R-USAGE-1 shape): its token kinds counted for the agent. */
  turnUsage(agent: string, u: { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number; reasoningTokens?: number }): void {
    this.tokensUsed(agent, "input", u.inputTokens ?? 0);
    this.tokensUsed(agent, "output", u.outputTokens ?? 0);
    this.tokensUsed(agent, "cached_input", u.cachedInputTokens ?? 0);
    this.tokensUsed(agent, "reasoning", u.reasoningTokens ?? 0);
  }

  tokensUsed(agent: string, kind: string, n: number): void {
    if (!Number.isFinite(n) || n <= 0) return;
    let m = this.tokens.get(agent);
    if (!m) this.tokens.set(agent, (m = new Map()));
    bump(m, kind, n);
  }

  /** The agent's running total of custody traffic (the proxy adds to it as requests pass). */
  custodyTraffic(agent: string): CustodyTraffic {
    let t = this.custody.get(agent);
    if (!t) this.custody.set(agent, (t = { requests: 0, requestBytes: 0, responseBytes: 0 }));
    return t;
  }

  custodyRefused(): number {
    return this.sources.custodyRefused?.() ?? 0;
  }

  duration(what: Duration, seconds: number): void {
    for (const l of this.durationListeners) l(what, seconds);
  }

  /** Exporters that keep their own distributions (histograms) listen to every duration. */
  onDuration(l: (what: Duration, seconds: number) => void): () => void {
    this.durationListeners.add(l);
    return () => this.durationListeners.delete(l);
  }

  turnStarted(): void {
    this.turnsInFlight++;
  }

  turnEnded(seconds: number): void {
    this.turnsInFlight = Math.max(0, this.turnsInFlight - 1);
    this.duration("turn", seconds);
    if (this.turnsInFlight === 0) for (const w of [...this.turnWaiters]) w();
  }

  /** Resolves once no turn runs (at once when none does). */
  noTurns(): Promise<void> {
    if (this.turnsInFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const w = () => {
        this.turnWaiters.delete(w);
        resolve();
      };
      this.turnWaiters.add(w);
    });
  }
}

function bump(m: Map<string, number>, key: string, n: number): void {
  m.set(key, (m.get(key) ?? 0) + n);
}
