// The connections attached to one session (§15, R-REMOTE-3..5). A session belongs to the
// sidecar; connections come and go and only view it: its events go to every attached
// connection, a permission request to every one (the first valid answer decides, the
// others hear `permission/settled`), and one that attaches late is caught up from the
// session's journal before it sees any live event.
import type { AgentEvent, PermissionRequest, PermissionResponse, PermissionSettledParams } from "../../generated/ts/types.js";
import { validatePermissionResponse } from "../../generated/ts/validators.js";
import type { Journal } from "../journal/journal.js";
import type { FlowGate } from "../transport/ndjson-writer.js";
import type { HostChannel } from "./host-channel.js";
import type { Facts } from "../telemetry/facts.js";

/** One host connection as the sessions see it. */
export interface Viewer {
  /** The tenant the connection authenticated as ("" for stdio, unix sockets and loopback without tokens). */
  readonly tenant: string;
  /** For log lines: `stdio`, `ws#3 (alice)`. */
  readonly name: string;
  /** True once the connection has ended: it is never attached again, nor asked anything. */
  readonly gone?: boolean;
  event(sessionId: string, event: AgentEvent, seq: number): void;
  requestPermission(request: PermissionRequest, signal: AbortSignal): Promise<unknown>;
  permissionSettled(params: PermissionSettledParams): void;
}

interface Ask {
  request: PermissionRequest;
  /** The connections asked and not yet answered, with the abort of their request. */
  asked: Map<Viewer, AbortController>;
  resolve: (answer: unknown) => void;
  reject: (e: unknown) => void;
  done: boolean;
}

export interface AttachmentsOptions {
  sessionId: string;
  gate: FlowGate;
  /** Called when the last connection detaches, and when one attaches again. */
  onAttachedChange?: (count: number) => void;
}

export class Attachments implements HostChannel {
  /** Attached connections; `true` while one is being caught up (live events wait in the journal). */
  private readonly viewers = new Map<Viewer, boolean>();
  private readonly asks = new Set<Ask>();
  readonly gate: FlowGate;

  constructor(private readonly o: AttachmentsOptions) {
    this.gate = o.gate;
  }

  get count(): number {
    return this.viewers.size;
  }

  has(v: Viewer): boolean {
    return this.viewers.has(v);
  }

  /** Attaches `v` now (it sees every later event). */
  attach(v: Viewer): void {
    if (v.gone) {
      // Opened by a connection that ended meanwhile: the session starts out detached.
      if (!this.viewers.size) this.o.onAttachedChange?.(0);
      return;
    }
    const had = this.viewers.has(v);
    this.viewers.set(v, false);
    if (!had) this.o.onAttachedChange?.(this.viewers.size);
  }

  /**
   * Attaches `v` in catch-up: live events skip it (they are journaled) until `finish` is
   * called, right after the attach answer was written. `finish` writes every journaled
   * event with seq > afterSeq in order, then sends the pending permission requests again:
   * from then on `v` is live. Nothing runs between the replay and going live, so no event
   * is missed or seen twice.
   */
  attachCatchingUp(v: Viewer, journal: Journal, afterSeq: number): { finish: () => void } {
    if (v.gone) return { finish: () => {} };
    const had = this.viewers.has(v);
    this.viewers.set(v, true);
    if (!had) this.o.onAttachedChange?.(this.viewers.size);
    return {
      finish: () => {
        if (this.viewers.get(v) !== true) return;
        let after = afterSeq;
        for (;;) {
          const h = journal.history(after);
          for (const e of h.events) v.event(this.o.sessionId, e.event, e.seq);
          if (!h.events.length || h.events[h.events.length - 1]!.seq >= h.lastSeq) break;
          after = h.events[h.events.length - 1]!.seq;
        }
        this.viewers.set(v, false);
        for (const ask of this.asks) if (!ask.done && !ask.asked.has(v)) this.askOne(ask, v);
      },
    };
  }

  /** Detaches `v`: its pending permission requests are withdrawn from it. */
  detach(v: Viewer): boolean {
    if (!this.viewers.delete(v)) return false;
    for (const ask of this.asks) {
      const c = ask.asked.get(v);
      if (c) {
        ask.asked.delete(v);
        c.abort(new Error("the connection detached"));
      }
    }
    this.o.onAttachedChange?.(this.viewers.size);
    return true;
  }

  /** Detaches everyone (the session closed). */
  clear(): void {
    for (const v of [...this.viewers.keys()]) this.detach(v);
  }

  event(sessionId: string, event: AgentEvent, seq: number): void {
    for (const [v, catchingUp] of this.viewers) if (!catchingUp) v.event(sessionId, event, seq);
  }

  /**
   * R-REMOTE-5: asks every attached connection; resolves with the first valid answer. With
   * none attached it waits for one to attach (the broker's --permission-timeout and the
   * turn's end still apply through `signal`).
   */
  requestPermission(request: PermissionRequest, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const ask: Ask = { request, asked: new Map(), resolve, reject, done: false };
      const onAbort = () => this.settle(ask, null, () => reject(signal.reason));
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      signal.addEventListener("abort", onAbort, { once: true });
      ask.resolve = (a) => {
        signal.removeEventListener("abort", onAbort);
        resolve(a);
      };
      ask.reject = (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      };
      this.asks.add(ask);
      for (const [v, catchingUp] of this.viewers) if (!catchingUp) this.askOne(ask, v);
    });
  }

  private askOne(ask: Ask, v: Viewer): void {
    if (v.gone) return;
    const c = new AbortController();
    ask.asked.set(v, c);
    v.requestPermission(ask.request, c.signal).then(
      (answer) => {
        if (ask.done || ask.asked.get(v) !== c) return;
        ask.asked.delete(v);
        if (isValidAnswer(ask.request, answer) || ask.asked.size === 0) {
          this.settle(ask, v, () => ask.resolve(answer), isValidAnswer(ask.request, answer) ? (answer as PermissionResponse) : null);
        }
      },
      (e: unknown) => {
        // A connection that went away (or was withdrawn) leaves the others, or a later one, to answer.
        if (ask.done || ask.asked.get(v) !== c || c.signal.aborted || !this.viewers.has(v) || v.gone) return;
        ask.asked.delete(v);
        if (ask.asked.size === 0) this.settle(ask, v, () => ask.reject(e));
      },
    );
  }

  /** Ends `ask`: `by` decided it (null: nobody did); when one did, everyone else asked hears `permission/settled`. */
  private settle(ask: Ask, by: Viewer | null, finish: () => void, answer: PermissionResponse | null = null): void {
    if (ask.done) return;
    ask.done = true;
    this.asks.delete(ask);
    const settled: PermissionSettledParams =
      answer && "selected" in answer
        ? { sessionId: this.o.sessionId, toolCallId: ask.request.toolCallId, outcome: "selected", optionId: answer.selected, decidedBy: "host" }
        : { sessionId: this.o.sessionId, toolCallId: ask.request.toolCallId, outcome: "cancelled", decidedBy: answer ? "host" : "policy" };
    // Only an answer from another connection is news to them: a request that ended otherwise
    // (turn cancelled, session closing, timeout) shows as the permissionResolved event, as on stdio.
    for (const [v, c] of ask.asked) {
      c.abort(new Error(by ? "decided by another connection" : "the request ended"));
      if (by && v !== by) v.permissionSettled(settled);
    }
    ask.asked.clear();
    finish();
  }
}

function isValidAnswer(request: PermissionRequest, answer: unknown): boolean {
  if (!validatePermissionResponse(answer)) return false;
  return "cancelled" in answer || request.options.some((o) => o.optionId === answer.selected);
}

/** Every event a session sends is counted once, whoever views it (R-REMOTE-8). */
export class CountedAttachments extends Attachments {
  constructor(
    private readonly facts: Facts,
    o: ConstructorParameters<typeof Attachments>[0],
  ) {
    super(o);
  }

  override event(sessionId: string, event: AgentEvent, seq: number): void {
    this.facts.event(event.type);
    super.event(sessionId, event, seq);
  }
}
