// Permission routing: the session's preset decides what it may, the host decides the
// rest, and anything short of a valid host choice is `cancelled` (R-PERM-1).
import type { PermissionPreset, PermissionRequest, PermissionResolvedEvent, ToolKind } from "../../generated/ts/types.js";
import { validatePermissionResponse } from "../../generated/ts/validators.js";
import { PRESET_RULES } from "../../generated/ts/limits.js";
import type { Logger } from "../log.js";
import type { LanePermissionOption, PermissionAsk, PermissionDecision } from "../lanes/lane.js";
import type { HostChannel } from "./host-channel.js";


type PresetChoice = { allow: true } | { allow: false } | null;

/** What a preset does with a kind of tool call: allow, reject, or leave it to the host (null). */
export function presetChoice(preset: PermissionPreset, kind: ToolKind): PresetChoice {
  // The rule is the schema's (PermissionPreset's x-preset-rules), generated.
  const rule = PRESET_RULES[preset];
  if (rule.allow.includes(kind)) return { allow: true };
  return rule.otherwise === "ask" ? null : { allow: rule.otherwise === "allow" };
}

/** The option a preset picks: a "once" option of the right sign; never an "always" one. */
function autoOption(options: LanePermissionOption[], allow: boolean): LanePermissionOption | undefined {
  const kind = allow ? "allowOnce" : "rejectOnce";
  return options.find((o) => o.kind === kind && o.auto !== false);
}

export interface PermissionBrokerOptions {
  sessionId: string;
  preset: PermissionPreset;
  host: HostChannel;
  emit: PermissionEmitter;
  logger: Logger;
  /** --permission-timeout: the host's silence becomes `cancelled` after this long. */
  timeoutMs?: number;
}

type PermissionEmitter = (event: PermissionResolvedEvent) => void;

export class PermissionBroker {
  constructor(private readonly o: PermissionBrokerOptions) {}

  /**
   * Decides one request. `signal` aborts when the turn is cancelled or the session closes:
   * a pending host request is then abandoned and the agent sees `cancelled`. A request that
   * comes with `signal` already aborted (outside a turn, after a cancel) is `cancelled`
   * before the preset is consulted.
   */
  async decide(ask: PermissionAsk, signal: AbortSignal): Promise<PermissionDecision> {
    // Outside a turn, after a cancel, or while closing: cancelled whatever the preset says.
    if (signal.aborted) return this.resolved(ask, { outcome: "cancelled" }, "policy");
    const choice = presetChoice(this.o.preset, ask.kind);
    if (choice) {
      const opt = autoOption(ask.options, choice.allow);
      if (opt) return this.resolved(ask, { outcome: "selected", optionId: opt.optionId }, "policy");
      // No "once" option of that sign: rejecting falls back to cancelled; allowing needs the host.
      if (!choice.allow) return this.resolved(ask, { outcome: "cancelled" }, "policy");
    }
    const request: PermissionRequest = {
      sessionId: this.o.sessionId,
      toolCallId: ask.toolCallId,
      title: ask.title,
      kind: ask.kind,
      contentTexts: ask.contentTexts,
      options: ask.options.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
      raw: ask.raw === undefined ? null : ask.raw,
    };
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    if (this.o.timeoutMs !== undefined) {
      timer = setTimeout(() => controller.abort(new Error(`no answer within --permission-timeout ${this.o.timeoutMs} ms`)), this.o.timeoutMs);
    }
    try {
      const answer = await this.o.host.requestPermission(request, controller.signal);
      if (!validatePermissionResponse(answer)) {
        this.o.logger.warn(
          `permission/request ${ask.toolCallId}: the host's answer ${JSON.stringify(answer)} is not {selected: id} or {cancelled: true}; treated as cancelled`,
          this.o.sessionId,
        );
        return this.resolved(ask, { outcome: "cancelled" }, "policy");
      }
      if ("cancelled" in answer) return this.resolved(ask, { outcome: "cancelled" }, "host");
      if (!ask.options.some((o) => o.optionId === answer.selected)) {
        this.o.logger.warn(
          `permission/request ${ask.toolCallId}: the host selected ${JSON.stringify(answer.selected)}, which is not one of the offered options; treated as cancelled`,
          this.o.sessionId,
        );
        return this.resolved(ask, { outcome: "cancelled" }, "policy");
      }
      return this.resolved(ask, { outcome: "selected", optionId: answer.selected }, "host");
    } catch (e) {
      this.o.logger.info(`permission/request ${ask.toolCallId} failed closed: ${(e as Error)?.message ?? e}`, this.o.sessionId);
      return this.resolved(ask, { outcome: "cancelled" }, "policy");
    } finally {
      if (timer) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  private resolved(ask: PermissionAsk, d: PermissionDecision, decidedBy: PermissionResolvedEvent["decidedBy"]): PermissionDecision {
    this.o.emit({
      type: "permissionResolved",
      toolCallId: ask.toolCallId,
      outcome: d.outcome,
      ...(d.outcome === "selected" ? { optionId: d.optionId } : {}),
      decidedBy,
    });
    return d;
  }
}
