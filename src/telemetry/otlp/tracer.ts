// R-OTEL-1/3: sessions' opens, turns, tool calls and permission waits as OTLP spans following
// the GenAI semantic conventions (`invoke_agent {agent}`, `execute_tool {tool}`). Every string
// goes through the sidecar's redactor (no credential, token or redacted value leaves in a
// span); prompt and reply texts only with --otel-content.
import { randomBytes } from "node:crypto";
import type { AgentEvent, Usage } from "../../../generated/ts/types.js";
import type { A4aaError } from "../../errors.js";
import type { SessionTracer, TurnInfo, TurnSpan } from "../tracing.js";
import type { OtlpExporter, OtlpSpan, OtlpValue } from "./exporter.js";

const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Which model provider an agent's id names (gen_ai.provider.name), when a4aa knows it. */
function providerOf(agent: string): string | undefined {
  if (/claude/.test(agent)) return "anthropic";
  if (/codex|openai/.test(agent)) return "openai";
  if (/gemini/.test(agent)) return "gcp.gemini";
  return undefined;
}

// Wall-clock nanoseconds, monotonic within the process (hrtime anchored to the epoch once).
const EPOCH_NS = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
const nowNs = (): bigint => EPOCH_NS + process.hrtime.bigint();
const hex = (bytes: number) => randomBytes(bytes).toString("hex");

type Attr = string | number | boolean | undefined;

class Span {
  readonly spanId = hex(8);
  private readonly start = nowNs();
  private readonly attrs: Record<string, Attr> = {};
  private status: OtlpSpan["status"];
  private ended = false;

  constructor(
    private readonly t: OtlpTracer,
    readonly name: string,
    readonly traceId: string,
    private readonly parentSpanId: string | undefined,
    private readonly kind: number,
  ) {}

  set(attrs: Record<string, Attr>): this {
    Object.assign(this.attrs, attrs);
    return this;
  }

  fail(err: A4aaError | undefined): void {
    if (!err) return;
    this.attrs["error.type"] = err.code;
    this.status = { code: STATUS_ERROR, message: this.t.redact(err.message).slice(0, 1000) };
  }

  get traceparent(): string {
    return `00-${this.traceId}-${this.spanId}-01`;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const attributes: OtlpSpan["attributes"] = [];
    for (const [key, v] of Object.entries(this.attrs)) {
      if (v === undefined) continue;
      const value: OtlpValue =
        typeof v === "string" ? { stringValue: this.t.redact(v) } : typeof v === "boolean" ? { boolValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
      attributes.push({ key, value });
    }
    this.t.exporter.add({
      traceId: this.traceId,
      spanId: this.spanId,
      ...(this.parentSpanId ? { parentSpanId: this.parentSpanId } : {}),
      name: this.t.redact(this.name),
      kind: this.kind,
      startTimeUnixNano: String(this.start),
      endTimeUnixNano: String(nowNs()),
      attributes,
      ...(this.status ? { status: this.status } : {}),
    });
  }
}

export class OtlpTracer implements SessionTracer {
  constructor(
    readonly exporter: OtlpExporter,
    readonly redact: (s: string) => string,
    private readonly content: boolean,
  ) {}

  open(info: { sessionId: string; agent: string; lane: string; program: string }) {
    const span = new Span(this, `create_agent ${info.agent}`, hex(16), undefined, SPAN_KIND_INTERNAL).set({
      "gen_ai.operation.name": "create_agent",
      "gen_ai.agent.name": info.agent,
      "gen_ai.provider.name": providerOf(info.agent),
      "a4aa.session_id": info.sessionId,
      "a4aa.lane": info.lane,
      "a4aa.program": info.program,
    });
    return {
      step: (method: string) => {
        const step = new Span(this, `handshake ${method}`, span.traceId, span.spanId, SPAN_KIND_CLIENT).set({ "rpc.method": method });
        return (failed: boolean) => {
          if (failed) step.set({ "error.type": "handshake_failed" });
          step.end();
        };
      },
      end: (r: { shared?: boolean; error?: A4aaError }) => {
        span.set({ "a4aa.shared": r.shared ?? false });
        span.fail(r.error);
        span.end();
      },
    };
  }

  turn(info: TurnInfo): TurnSpan {
    const parent = info.traceparent ? TRACEPARENT.exec(info.traceparent) : null;
    const span = new Span(this, `invoke_agent ${info.agent}`, parent?.[2] ?? hex(16), parent?.[3], SPAN_KIND_CLIENT).set({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": info.agent,
      "gen_ai.provider.name": providerOf(info.agent),
      "gen_ai.conversation.id": info.conversationId ?? info.sessionId,
      "gen_ai.request.model": info.model,
      "a4aa.session_id": info.sessionId,
      "a4aa.lane": info.lane,
    });
    if (this.content) span.set({ "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: info.text }] }]) });
    const tools = new Map<string, Span>();
    let usage: Usage = {};
    return {
      traceparent: span.traceparent,
      event: (e: AgentEvent) => {
        if (e.type === "toolCall") {
          const tool = new Span(this, `execute_tool ${e.kind}`, span.traceId, span.spanId, SPAN_KIND_INTERNAL).set({
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.call.id": e.toolCallId,
            "gen_ai.tool.type": e.kind,
            "gen_ai.tool.name": this.content ? e.title : e.kind,
          });
          tools.set(e.toolCallId, tool);
          if (e.status === "completed" || e.status === "failed") this.endTool(tools, e.toolCallId, e.status);
        } else if (e.type === "toolCallUpdate" && (e.status === "completed" || e.status === "failed")) {
          this.endTool(tools, e.toolCallId, e.status);
        } else if (e.type === "usage") {
          usage = { ...usage, ...e };
        }
      },
      permission: (ask) => {
        const wait = new Span(this, `permission ${ask.kind}`, span.traceId, tools.get(ask.toolCallId)?.spanId ?? span.spanId, SPAN_KIND_INTERNAL).set({
          "gen_ai.tool.call.id": ask.toolCallId,
          "a4aa.tool.kind": ask.kind,
        });
        return (decision, decidedBy) => {
          wait.set({ "a4aa.permission.outcome": decision?.outcome ?? "cancelled", "a4aa.permission.option_id": decision?.outcome === "selected" ? decision.optionId : undefined, "a4aa.permission.decided_by": decidedBy });
          wait.end();
        };
      },
      end: ({ outcome, error, custody }) => {
        const u = { ...usage, ...outcome?.usage };
        span.set({
          "gen_ai.usage.input_tokens": u.inputTokens,
          "gen_ai.usage.output_tokens": u.outputTokens,
          "gen_ai.usage.cache_read.input_tokens": u.cachedInputTokens,
          "gen_ai.usage.reasoning.output_tokens": u.reasoningTokens,
          "a4aa.cost_usd": u.costUsd,
          "a4aa.stop_reason": outcome?.stopReason,
          "a4aa.custody.requests": custody?.requests,
          "a4aa.custody.request_bytes": custody?.requestBytes,
          "a4aa.custody.response_bytes": custody?.responseBytes,
        });
        if (this.content && outcome?.text) span.set({ "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: outcome.text }] }]) });
        span.fail(error);
        for (const id of [...tools.keys()]) this.endTool(tools, id, undefined);
        span.end();
      },
    };
  }

  private endTool(tools: Map<string, Span>, id: string, status: "completed" | "failed" | undefined): void {
    const t = tools.get(id);
    if (!t) return;
    tools.delete(id);
    t.set({ "a4aa.tool.status": status ?? "unfinished" });
    t.end();
  }
}
