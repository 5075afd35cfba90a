// One person's session through the public TypeScript client and a real `a4aa serve` child,
// the same path every host takes.
import { A4aaClient, TurnEnd, currentSelectorValue, offeredValues, type AgentEvent, type ContentBlock, type ExitStatus, type OpenResult, type PermissionRequest, type PermissionResponse, type SessionOpenParams, type SessionState, type TurnOutcome } from "../../../clients/ts/index.js";
import type { AgentChoice } from "./options.js";

export interface OpenRequest {
  target: AgentChoice;
  cwd: string;
  resume?: string;
  options: SessionOpenParams["options"];
  env: Record<string, string>;
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

  constructor(private readonly hooks: SessionHooks) {
    this.client = A4aaClient.start({
      onStderr: (t) => hooks.onSidecarLog(t),
      onPermission: (req) => hooks.onPermission(req),
      closeTimeoutMs: 20_000,
    });
  }

  get sessionId(): string | undefined {
    return this.open?.sessionId;
  }

  /** `onOpen` runs before any of the session's events (a resumed history) is handed over. */
  async openSession(req: OpenRequest, onOpen?: (open: OpenResult) => void): Promise<OpenResult> {
    // `agent` (instead of `spec`) is the catalog form of protocol 1.2.
    const params = {
      ...req.target,
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
