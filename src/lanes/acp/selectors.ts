// Session options on ACP are negotiated: the agent offers modes, models and config
// options, and a value it did not offer is unsupported_selector. The state is the a4aa
// SessionState (generated) as the agent gave it; reading it is the client's
// (clients/ts/session-state.ts, which hosts use too); this module writes it.
import type { SessionState } from "../../../generated/ts/types.js";
import { currentSelectorValue, offeredValues, optionValues, selectorOption, type SelectorKind } from "../../../clients/ts/session-state.js";

export type { SelectorKind };
export { currentSelectorValue as currentValue, offeredValues as offered };

export type SelectorCall = { method: string; params: Record<string, unknown> } | null;

/**
 * The request that sets `value`, null when it is already current, or a string saying why
 * the agent cannot take it.
 */
export function selectorCall(state: SessionState, sessionId: string, kind: SelectorKind, value: string): SelectorCall | string {
  const cfg = selectorOption(state, kind);
  if (cfg) {
    if (!optionValues(cfg).includes(value)) return `the agent does not offer ${kind} ${JSON.stringify(value)} (it offers ${listOf(optionValues(cfg))})`;
    if (cfg.currentValue === value) return null;
    return { method: "session/set_config_option", params: { sessionId, configId: cfg.id, value } };
  }
  if (kind === "mode" && state.modes?.availableModes?.length) {
    const ids = state.modes.availableModes.map((m) => m.id);
    if (!ids.includes(value)) return `the agent does not offer mode ${JSON.stringify(value)} (it offers ${listOf(ids)})`;
    if (state.modes.currentModeId === value) return null;
    return { method: "session/set_mode", params: { sessionId, modeId: value } };
  }
  if (kind === "model" && state.models?.availableModels?.length) {
    const ids = state.models.availableModels.map((m) => m.modelId);
    if (!ids.includes(value)) return `the agent does not offer model ${JSON.stringify(value)} (it offers ${listOf(ids)})`;
    if (state.models.currentModelId === value) return null;
    return { method: "session/set_model", params: { sessionId, modelId: value } };
  }
  return `the agent offers no ${kind} selector`;
}

/** Records a value as current after the agent accepted it. */
export function markCurrent(state: SessionState, kind: SelectorKind, value: string): void {
  const cfg = selectorOption(state, kind);
  if (cfg) cfg.currentValue = value;
  else if (kind === "mode" && state.modes) state.modes.currentModeId = value;
  else if (kind === "model" && state.models) state.models.currentModelId = value;
}

function listOf(ids: string[]): string {
  return ids.length ? ids.map((i) => JSON.stringify(i)).join(", ") : "none";
}
