// Who owns each session and who views it (§15): the tenant that opened it, the connections
// attached to it, and the detach TTL that closes a session nobody has come back for.
import type { ResultOf } from "../../generated/ts/methods.js";
import type { SessionLifecycle, SessionSummary } from "../../generated/ts/types.js";
import { A4aaError } from "../errors.js";
import type { Journal } from "../journal/journal.js";
import type { Logger } from "../log.js";
import type { Attachments, Viewer } from "./attachments.js";
import type { Session } from "./session.js";

export const DEFAULT_DETACH_TTL_MS = 300_000;

export interface SessionView {
  id: string;
  tenant: string;
  agent: string;
  cwd: string;
  session: Session;
  attachments: Attachments;
  openedAt?: string;
  ttl?: NodeJS.Timeout;
}

export interface SessionViewsOptions {
  logger: Logger;
  detachTtlMs?: number;
  /** Closes a session as session/close does (the detach TTL ran out). */
  closeAbandoned: (sessionId: string) => Promise<void>;
}

export class SessionViews {
  private readonly views = new Map<string, SessionView>();

  constructor(private readonly o: SessionViewsOptions) {}

  add(v: SessionView): void {
    v.openedAt ??= new Date().toISOString();
    this.views.set(v.id, v);
  }

  get(id: string): SessionView | undefined {
    return this.views.get(id);
  }

  remove(id: string): void {
    const v = this.views.get(id);
    if (!v) return;
    this.views.delete(id);
    if (v.ttl) clearTimeout(v.ttl);
    v.attachments.clear();
  }

  owns(id: string, caller: Viewer): boolean {
    return this.views.get(id)?.tenant === caller.tenant;
  }

  /** The detach TTL starts when the last connection detaches and stops when one attaches. */
  attachedChanged(id: string, count: number): void {
    const v = this.views.get(id);
    if (!v) return;
    if (count > 0) {
      if (v.ttl) clearTimeout(v.ttl);
      v.ttl = undefined;
      return;
    }
    if (v.ttl) return;
    const ttl = this.o.detachTtlMs ?? DEFAULT_DETACH_TTL_MS;
    v.ttl = setTimeout(() => {
      v.ttl = undefined;
      if (v.attachments.count > 0 || !this.views.has(id)) return;
      this.o.logger.info(`no connection attached for --detach-ttl ${ttl} ms: closing the session`, id);
      this.o.closeAbandoned(id).catch((e: unknown) => this.o.logger.error(`closing the abandoned session failed: ${(e as Error)?.message ?? e}`, id));
    }, ttl);
    v.ttl.unref?.();
  }

  /** R-REMOTE-4: attach `caller`, replaying the journal after `afterSeq` once the answer is out. */
  attach(v: SessionView, journal: Journal, caller: Viewer, afterSeq?: number): { result: ResultOf<"session/attach">; finish: () => void } {
    const last = journal.lastSeq;
    const from = afterSeq ?? last;
    if (from > last) {
      throw new A4aaError("invalid_params", "transport", `afterSeq ${from} is past the session's last event (seq ${last})`);
    }
    if (from < journal.firstSeq - 1) {
      throw new A4aaError(
        "history_truncated",
        "transport",
        `the journal of session ${v.id} starts at seq ${journal.firstSeq}: events after ${from} are no longer all kept (nothing was attached; attach with afterSeq >= ${journal.firstSeq - 1} and read what is missing elsewhere)`,
      );
    }
    const { finish } = v.attachments.attachCatchingUp(caller, journal, from);
    return { result: { sessionId: v.id, lastSeq: last, state: lifecycle(v.session), attached: v.attachments.count }, finish };
  }

  detachEverywhere(caller: Viewer): void {
    for (const v of this.views.values()) v.attachments.detach(caller);
  }

  list(tenant: string): ResultOf<"sessions/list"> {
    const sessions: SessionSummary[] = [];
    for (const v of this.views.values()) {
      if (v.tenant !== tenant) continue;
      sessions.push({
        sessionId: v.id,
        agent: v.agent,
        cwd: v.cwd,
        state: lifecycle(v.session),
        attached: v.attachments.count,
        lastSeq: v.session.journal.lastSeq,
        openedAt: v.openedAt!,
      });
    }
    return { sessions };
  }
}

function lifecycle(s: Session): SessionLifecycle {
  return s.state === "closeFailed" ? "closing" : s.state;
}
