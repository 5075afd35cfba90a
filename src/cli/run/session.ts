// One person's session through the public TypeScript client and a real `a4aa serve` child,
// the same path every host takes.
import { A4aaClient, TurnEnd, type AgentCredential, type AgentEntry, type AgentSelection, currentSelectorValue, offeredValues, type AgentEvent, type ContentBlock, type ExitStatus, type OpenResult, type PermissionRequest, type PermissionResponse, type SessionOpenParams, type SessionState, type TurnOutcome } from "../../../clients/ts/index.js";
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

export interface SessionHooks {
  onEvent(sessionId: string, e: AgentEvent): void;
  onPermission(req: PermissionRequest): Promise<PermissionResponse> | PermissionResponse;
  onSidecarLog(text: string): void;
}

export class RunSession {
  readonly client: A4aaClient;
  open: OpenResult | undefined;
  private pumps: Promise<void>[] = [];

  constructor(
    private readonly hooks: SessionHooks,
    serveArgs: string[] = [],
  ) {
    this.client = A4aaClient.start({
      serveArgs,
      onStderr: (t) => hooks.onSidecarLog(t),
      onPermission: (req) => hooks.onPermission(req),
      closeTimeoutMs: 20_000,
    });
  }

  /** The catalog entry's declared credential variables (for the words of an auth error). */
  credentials: AgentCredential[] = [];

  get sessionId(): string | undefined {
    return this.open?.sessionId;
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
    const open = await this.client.sessionOpen(params);
    this.open = open;
    onOpen?.(open);
    const sid = open.sessionId;
    this.pumps.push(
      (async () => {
        for await (const e of this.client.events(sid)) if (!(e instanceof TurnEnd)) this.hooks.onEvent(sid, e);
      })(),
    );
    return open;
  }

  /** A person's tool passes the agent's *declared* credential variables from its own
   * environment (`export ANTHROPIC_API_KEY=…` works as `a4aa doctor` says), still nothing
   * undeclared; a value given with --env wins. An unknown id fails here, fast, with the
   * ids that look like it. */
  private async withShellCredentials(agent: AgentSelection, given: Record<string, string>): Promise<AgentSelection> {
    const { agents } = await this.client.agentsList({});
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
    const outcome = await this.client.sessionPrompt({ sessionId: this.sessionId!, text, ...(content.length ? { content } : {}), ...(model ? { model } : {}) });
    // Every event of the turn was sent before its answer; let the pump hand them all over.
    await new Promise((r) => setImmediate(r));
    return outcome;
  }

  cancel(): Promise<unknown> {
    if (!this.sessionId) return Promise.resolve();
    return this.client.sessionCancel({ sessionId: this.sessionId }).catch(() => undefined);
  }

  /** Closes the session (its agent's whole process tree), then the sidecar. */
  async end(): Promise<ExitStatus> {
    if (this.sessionId) await this.client.sessionClose({ sessionId: this.sessionId }, { timeoutMs: 20_000 }).catch(() => undefined);
    const status = await this.client.close();
    await Promise.allSettled(this.pumps);
    return status;
  }

  /** Closes this session only (the sidecar stays), e.g. to reopen it with another mode. */
  async closeSession(): Promise<void> {
    if (!this.sessionId) return;
    await this.client.sessionClose({ sessionId: this.sessionId }, { timeoutMs: 20_000 });
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
