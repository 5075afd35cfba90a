// A small scheduler for a fleet of a4aa sidecars (README "Running a fleet"): each new session
// goes to the ready sidecar with the least load, read from every sidecar's /readyz and
// /metrics; a sidecar that refuses an open (draining, at capacity) is skipped until its
// readiness says otherwise, and a session whose sidecar drained or died is opened again
// elsewhere. A model to copy into a host, not an a4aa API: it uses only the public client
// and the endpoints any scheduler (a Kubernetes Service, a sandbox provider) reads.
// test/fleet/fleet.test.ts drives it across network namespaces.
import { A4aaError, connect, type RemoteClient, type RemoteOptions, type SessionOpenParams } from "../../clients/ts/index.js";

export interface Sidecar {
  /** Its WebSocket URL (`ws://10.0.0.7:7700`); the HTTP endpoints are on the same port. */
  readonly url: string;
  /** ready: /readyz 200; busy: 503 (draining, at_capacity); unreachable: no HTTP answer. */
  state: "ready" | "busy" | "unreachable";
  /** Why it is not ready, for logs: the /readyz body, the HTTP failure, the refused open. */
  why: string;
  /** At the last poll: sessions it holds (a4aa_sessions, every state), turns running. */
  sessions: number;
  turns: number;
  /** Sessions this scheduler placed there and holds, and its opens there under way. */
  held: number;
  placing: number;
  /** When /readyz last answered, and how long that took. */
  polledAt: number;
  readyzMs: number;
  client?: Promise<RemoteClient>;
}

export interface Placement {
  readonly sidecar: Sidecar;
  readonly client: RemoteClient;
  readonly sessionId: string;
  readonly params: SessionOpenParams;
}

export interface SchedulerOptions {
  /** The bearer token for the upgrade and /metrics (one NAME:TOKEN line of --auth-token-file). */
  token?: string;
  /** How often every sidecar is read. Default 1000 ms. */
  pollMs?: number;
  /** A /readyz or /metrics request that takes longer counts as unreachable. Default 2000 ms. */
  httpTimeoutMs?: number;
  /** Options of each sidecar's client (reconnect bounds, heartbeat, permission handler). */
  client?: RemoteOptions;
}

/** The sum of a Prometheus text's samples of `name` (every label set), or undefined. */
export function metricSum(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name) || (line[name.length] !== " " && line[name.length] !== "{")) continue;
    sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

export class FleetScheduler {
  readonly sidecars: Sidecar[];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    urls: string[],
    private readonly opts: SchedulerOptions = {},
  ) {
    this.sidecars = urls.map((url) => ({ url, state: "unreachable", why: "not read yet", sessions: 0, turns: 0, held: 0, placing: 0, polledAt: 0, readyzMs: 0 }));
  }

  /** Reads every sidecar once, then every pollMs. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.opts.pollMs ?? 1000);
    this.timer.unref();
  }

  async poll(): Promise<void> {
    await Promise.all(this.sidecars.map((s) => this.read(s)));
  }

  private async read(s: Sidecar): Promise<void> {
    const base = s.url.replace(/^ws/, "http").replace(/^(https?:\/\/[^/]+).*$/, "$1");
    const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers, signal: AbortSignal.timeout(this.opts.httpTimeoutMs ?? 2000) });
    try {
      const t0 = performance.now();
      const ready = await get("/readyz");
      const body = (await ready.text()).trim();
      s.readyzMs = performance.now() - t0;
      s.polledAt = Date.now();
      s.state = ready.status === 200 ? "ready" : "busy";
      s.why = ready.status === 200 ? "" : body;
      const m = await get("/metrics", this.opts.token ? { authorization: `Bearer ${this.opts.token}` } : {});
      if (m.status === 200) {
        const text = await m.text();
        s.sessions = metricSum(text, "a4aa_sessions") ?? s.sessions;
        s.turns = metricSum(text, "a4aa_turns_in_flight") ?? s.turns;
      } else await m.body?.cancel();
    } catch (e) {
      s.state = "unreachable";
      s.why = (e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message;
    }
  }

  /** What a sidecar carries: the sessions it reports or this scheduler holds there, and opens under way. */
  load(s: Sidecar): number {
    return Math.max(s.sessions, s.held) + s.placing;
  }

  /** The ready sidecar with the least load (the first of equals), not one of `skip`. */
  pick(skip: Set<Sidecar> = new Set()): Sidecar | undefined {
    let best: Sidecar | undefined;
    for (const s of this.sidecars) if (s.state === "ready" && !skip.has(s) && (!best || this.load(s) < this.load(best))) best = s;
    return best;
  }

  /**
   * Opens a session on the least loaded ready sidecar. A refusal that says to retry (draining,
   * at_capacity) or a connection that fails marks that sidecar busy and the next one is tried.
   */
  async open(params: SessionOpenParams): Promise<Placement> {
    const tried = new Set<Sidecar>();
    for (let s = this.pick(); s; s = this.pick(tried)) {
      tried.add(s);
      s.placing++;
      try {
        const client = await this.clientOf(s);
        const { sessionId } = await client.sessionOpen(params);
        s.held++;
        return { sidecar: s, client, sessionId, params };
      } catch (e) {
        if (!(e instanceof A4aaError) || !(e.retryable || e.code === "peer_closed")) throw e;
        s.state = e.code === "peer_closed" ? "unreachable" : "busy";
        s.why = e.code;
        // A client that gave up reconnecting stays ended: the next open there connects anew.
        if (e.code === "peer_closed") s.client = undefined;
      } finally {
        s.placing--;
      }
    }
    throw new Error(`no sidecar took the session: ${this.sidecars.map((s) => `${s.url} ${s.state}${s.why ? ` (${s.why})` : ""}`).join("; ")}`);
  }

  /** The session's sidecar drained or died: a new session with the same params elsewhere. */
  reopen(p: Placement): Promise<Placement> {
    this.forget(p);
    return this.open(p.params);
  }

  /** Closes the session on its sidecar. */
  async close(p: Placement): Promise<void> {
    await p.client.sessionClose({ sessionId: p.sessionId });
    this.forget(p);
  }

  /** No longer counts a session (it was closed elsewhere, or its sidecar is gone). */
  forget(p: Placement): void {
    p.sidecar.held = Math.max(0, p.sidecar.held - 1);
  }

  /** Stops reading and closes every client (sessions not closed stay, detached, for --detach-ttl). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.sidecars.map(async (s) => (await s.client?.catch(() => undefined))?.close()));
  }

  private clientOf(s: Sidecar): Promise<RemoteClient> {
    if (!s.client) {
      s.client = connect(s.url, { ...this.opts.client, token: this.opts.token });
      s.client.catch(() => (s.client = undefined));
    }
    return s.client;
  }
}
