// One person's session through the public TypeScript client and a real `a4aa serve` — a child
// it starts, or (--connect) a sidecar reached over a WebSocket — the same path every host takes.
import { A4aaClient, RemoteClient, TurnEnd, type ClientCore, type SessionsListResult, type AgentCredential, type AgentEntry, type AgentSelection, currentSelectorValue, offeredValues, type AgentEvent, type ContentBlock, type ExitStatus, type OpenResult, type PermissionRequest, type PermissionResponse, type SessionOpenParams, type SessionState, type TurnOutcome } from "../../../clients/ts/index.js";
import type { AgentChoice } from "./options.js";

export interface OpenRequest {
  target: AgentChoice;
  cwd: string;
  resume?: string;
  options: SessionOpenParams["options"];
  env: Record<string, string>;
}

/** `--agent ID` names no catalog entry: the ids that look like it. */
export class UnknownAgentId extends Error {
  constructor(readonly id: string, readonly suggestions: string[], readonly known: string[]) {
    super(`there is no agent ${JSON.stringify(id)} in the catalog${suggestions.length ? `; did you mean ${suggestions.map((x) => `--agent ${x}`).join(" or ")}?` : ""}`);
  }
}

/** `--session ID` names no session this token can attach to. */
export class UnknownSession extends Error {
  constructor(readonly id: string, readonly known: ListedSession[]) {
    super(
      `the sidecar has no session ${JSON.stringify(id)} for this token` +
        (known.length ? `; its sessions: ${known.map((s) => `${s.sessionId} (${s.agent}, ${s.state})`).join(", ")}` : "; it holds none (closed sessions, and those left unattached past its --detach-ttl, are gone)"),
    );
  }
}

export interface SessionHooks {
  onEvent(sessionId: string, e: AgentEvent): void;
  onPermission(req: PermissionRequest): Promise<PermissionResponse> | PermissionResponse;
  onSidecarLog(text: string): void;
}

/**
 * Hooks whose owner comes later: the sidecar starts while the terminal's modules load. Until
 * `target` is set only the sidecar's log can arrive (no session is open yet): it goes to
 * stderr, and a permission request, were one to come, is refused.
 */
export class LateHooks implements SessionHooks {
  target: SessionHooks | undefined;

  onEvent(sessionId: string, e: AgentEvent): void {
    this.target?.onEvent(sessionId, e);
  }

  onPermission(req: PermissionRequest): Promise<PermissionResponse> | PermissionResponse {
    return this.target ? this.target.onPermission(req) : { cancelled: true };
  }

  onSidecarLog(text: string): void {
    if (this.target) this.target.onSidecarLog(text);
    else process.stderr.write(text);
  }
}

/** Where the sidecar is: a child this run starts (with these flags), or one it connects to. */
export type SidecarPlace = { serveArgs: string[] } | { connect: { url: string; token?: string } };

/** A session of a sidecar this run connected to, as `sessions/list` shows it. */
export type ListedSession = SessionsListResult["sessions"][number];

export class RunSession {
  private readonly connecting: Promise<ClientCore>;
  /** Known once connected (at once for a child). */
  private client: ClientCore | undefined;
  open: OpenResult | undefined;
  /** --session: the running session this run attached to (left running at the end). */
  attached: ListedSession | undefined;
  private pumps: Promise<void>[] = [];

  constructor(
    private readonly hooks: SessionHooks,
    place: SidecarPlace = { serveArgs: [] },
  ) {
    const onPermission = (req: PermissionRequest) => hooks.onPermission(req);
    if ("connect" in place) {
      const { url, token } = place.connect;
      this.connecting = A4aaClient.connect(url, { ...(token ? { token } : {}), onPermission, onLog: (t) => hooks.onSidecarLog(`${t}\n`) });
    } else {
      this.client = A4aaClient.start({ serveArgs: place.serveArgs, onStderr: (t) => hooks.onSidecarLog(t), onPermission, closeTimeoutMs: 20_000 });
      this.connecting = Promise.resolve(this.client);
    }
    this.connecting.then((c) => (this.client = c)).catch(() => undefined);
  }

  /** The client, once connected (a refused token or an unreachable sidecar throws here). */
  private c(): Promise<ClientCore> {
    return this.connecting;
  }

  /** Whether the sidecar is one this run connected to. */
  get remote(): boolean {
    return this.client instanceof RemoteClient;
  }

  /** The catalog entry's declared credential variables (for the words of an auth error). */
  credentials: AgentCredential[] = [];

  get sessionId(): string | undefined {
    return this.open?.sessionId ?? this.attached?.sessionId;
  }

  /**
   * --session ID: attach to a running session of the sidecar from its first event (the
   * conversation so far comes first, then live events). `onAttached` runs before any of them
   * is handed over. An unknown id fails naming the sessions this token can attach to.
   */
  async attachSession(sessionId: string, onAttached?: (s: ListedSession) => void): Promise<ListedSession> {
    const client = await this.c();
    const { sessions } = await client.sessionsList({});
    const found = sessions.find((x) => x.sessionId === sessionId);
    if (!found) throw new UnknownSession(sessionId, sessions);
    this.attached = found;
    onAttached?.(found);
    this.pump(client, sessionId);
    // From the oldest event the sidecar still holds (a long session's start may be gone).
    const { firstSeq } = await client.sessionHistory({ sessionId, afterSeq: found.lastSeq, limit: 1 });
    const afterSeq = firstSeq - 1;
    const { lastSeq } = await client.sessionAttach({ sessionId, afterSeq });
    // The conversation so far is shown before the prompt (2 s at most: then it goes on behind it).
    await this.delivered(lastSeq - afterSeq, 2000);
    return found;
  }

  /** Resolves when the attached session runs no turn (or is gone): sessions/list, polled. */
  async untilIdle(pollMs = 300): Promise<void> {
    const client = await this.c();
    for (;;) {
      const { sessions } = await client.sessionsList({});
      const s = sessions.find((x) => x.sessionId === this.sessionId);
      if (!s || s.state !== "turn") return;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  private count = 0;
  private counted: (() => void) | undefined;

  /** Resolves once `n` events of the session were handed over, or after `ms`. */
  private delivered(n: number, ms: number): Promise<void> {
    if (this.count >= n) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.counted = () => {
        if (this.count < n) return;
        clearTimeout(t);
        this.counted = undefined;
        resolve();
      };
    });
  }

  private pump(client: ClientCore, sid: string): void {
    this.pumps.push(
      (async () => {
        for await (const e of client.events(sid)) {
          if (e instanceof TurnEnd) continue;
          this.hooks.onEvent(sid, e);
          this.count++;
          this.counted?.();
        }
      })(),
    );
  }

  /** `onOpen` runs before any of the session's events (a resumed history) is handed over. */
  async openSession(req: OpenRequest, onOpen?: (open: OpenResult) => void): Promise<OpenResult> {
    // `agent` (instead of `spec`) is the catalog form of protocol 1.2.
    const target = "agent" in req.target ? { agent: await this.withShellCredentials(req.target.agent, req.env) } : req.target;
    const params = {
      ...target,
      cwd: req.cwd,
      ...(req.resume ? { resume: req.resume } : {}),
      ...(req.options && Object.keys(req.options).length ? { options: req.options } : {}),
      ...(Object.keys(req.env).length ? { env: req.env } : {}),
    } as SessionOpenParams;
    const client = await this.c();
    const open = await client.sessionOpen(params);
    this.open = open;
    onOpen?.(open);
    this.pump(client, open.sessionId);
    return open;
  }

  /** A person's tool passes the agent's *declared* credential variables from its own
   * environment (`export ANTHROPIC_API_KEY=…` works as `a4aa doctor` says), still nothing
   * undeclared; a value given with --env wins. An unknown id fails here, fast, with the
   * ids that look like it. */
  private async withShellCredentials(agent: AgentSelection, given: Record<string, string>): Promise<AgentSelection> {
    const { agents } = await (await this.c()).agentsList({});
    const entry = agents.find((a) => a.id === agent.id);
    if (!entry) throw new UnknownAgentId(agent.id, similarIds(agent.id, agents), agents.map((a) => a.id));
    this.credentials = entry.credentials;
    const fromShell: Record<string, string> = {};
    for (const c of entry.credentials) {
      const v = process.env[c.name];
      if (v !== undefined && v !== "" && !(c.name in given) && !(agent.credentials && c.name in agent.credentials)) fromShell[c.name] = v;
    }
    return Object.keys(fromShell).length ? { ...agent, credentials: { ...fromShell, ...agent.credentials } } : agent;
  }

  async prompt(text: string, model?: string, content: ContentBlock[] = []): Promise<TurnOutcome> {
    const outcome = await (await this.c()).sessionPrompt({ sessionId: this.sessionId!, text, ...(content.length ? { content } : {}), ...(model ? { model } : {}) });
    // Every event of the turn was sent before its answer; let the pump hand them all over.
    await new Promise((r) => setImmediate(r));
    return outcome;
  }

  cancel(): Promise<unknown> {
    if (!this.sessionId) return Promise.resolve();
    return this.c()
      .then((c) => c.sessionCancel({ sessionId: this.sessionId! }))
      .catch(() => undefined);
  }

  /**
   * Closes the session (its agent's whole process tree), then the sidecar. With `detach` (an
   * attached session, or /detach) the session is left running on the sidecar this run
   * connected to: only the connection ends.
   */
  async end(detach = !!this.attached): Promise<ExitStatus> {
    const client = this.client;
    if (!client) return { code: 0, signal: null };
    if (this.sessionId) {
      const sessionId = this.sessionId;
      const leave = detach && this.remote ? client.sessionDetach({ sessionId }) : client.sessionClose({ sessionId }, { timeoutMs: 20_000 });
      await leave.catch(() => undefined);
    }
    const status = client instanceof A4aaClient ? await client.close() : ((await (client as RemoteClient).close()), { code: 0, signal: null });
    await Promise.allSettled(this.pumps);
    return status;
  }

  /** Closes this session only (the sidecar stays), e.g. to reopen it with another mode. */
  async closeSession(): Promise<void> {
    if (!this.sessionId) return;
    await (await this.c()).sessionClose({ sessionId: this.sessionId }, { timeoutMs: 20_000 });
    this.open = undefined;
  }
}

/** The ids an agent offered for a selector and the current one, read as the sidecar reads them (the client's session-state helpers). */
export function offered(state: SessionState | null, kind: "mode" | "model"): { ids: string[]; current?: string } {
  if (!state) return { ids: [] };
  return { ids: offeredValues(state, kind), current: currentSelectorValue(state, kind) };
}

/** Catalog ids close to `id`: one contains the other, or they are a couple of edits apart. */
export function similarIds(id: string, agents: AgentEntry[]): string[] {
  const want = id.toLowerCase();
  const scored = agents
    .map((a) => ({ id: a.id, d: a.id.includes(want) || want.includes(a.id) ? 0 : editDistance(want, a.id) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(want.length / 3)))
    .sort((a, b) => a.d - b.d || a.id.localeCompare(b.id));
  return scored.slice(0, 3).map((x) => x.id);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
