// What the sessions tell a tracer (R-OTEL-1): an open, a turn with its events and permission
// waits. The OTLP exporter (./otlp/) implements them and is loaded only when export is
// configured; without it nothing here costs more than a check.
import type { AgentEvent, ToolKind, TurnOutcome } from "../../generated/ts/types.js";
import type { A4aaError } from "../errors.js";
import type { CustodyTraffic } from "./facts.js";

/** The permission request a wait is about (a lane's PermissionAsk has these). */
export interface TracedAsk {
  toolCallId: string;
  kind: ToolKind;
}
export type TracedDecision = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };

export interface SessionTracer {
  /** `session/open` of an agent: ended when the open answers. */
  open(info: { sessionId: string; agent: string; lane: string; program: string }): OpenSpan;
  /** One turn: its span's own context goes to the agent (R-OTEL-2). */
  turn(info: TurnInfo): TurnSpan;
}

export interface OpenSpan {
  /** A handshake request (initialize, session/new, thread/start…) as a child span; ended when answered. */
  step(method: string): (failed: boolean) => void;
  end(r: { shared?: boolean; error?: A4aaError }): void;
}

export interface TurnInfo {
  sessionId: string;
  agent: string;
  lane: string;
  /** The agent's own session id when known (gen_ai.conversation.id). */
  conversationId?: string;
  model?: string;
  traceparent?: string;
  tracestate?: string;
  /** The prompt's text (exported only with --otel-content). */
  text: string;
}

export interface TurnSpan {
  /** The W3C context of this turn's span, for the agent. */
  readonly traceparent: string;
  event(e: AgentEvent): void;
  /** A permission wait began; the returned function ends it with the decision. */
  permission(ask: TracedAsk): (decision: TracedDecision | undefined, decidedBy: "host" | "policy") => void;
  /** `custody`: what the custody proxy carried for the session during the turn (R-CUSTODY-1). */
  end(r: { outcome?: TurnOutcome; error?: A4aaError; custody?: CustodyTraffic }): void;
}

/** A permission wait as a span of the turn (when the turn is traced): ended with its decision. */
export function tracePermission<D extends TracedDecision>(span: TurnSpan | undefined, ask: TracedAsk, decided: Promise<D>, by: "host" | "policy"): Promise<D> {
  if (!span) return decided;
  const end = span.permission(ask);
  return decided.then(
    (d) => (end(d, by), d),
    (e: unknown) => (end(undefined, "policy"), Promise.reject(e)),
  );
}
