// Session options on ACP are negotiated: the agent offers modes, models and config
// options, and a value it did not offer is unsupported_selector. Config options (ACP's
// newer mechanism) win over the older `modes` / legacy `models` where both exist.

export interface SelectOption {
  id: string;
  category?: string | null;
  type?: string;
  currentValue?: unknown;
  options?: unknown;
}

export interface AcpSessionState {
  modes?: { currentModeId?: string; availableModes?: { id: string; name?: string }[] } | null;
  /** Legacy (pre config options) model selector. */
  models?: { currentModelId?: string; availableModels?: { modelId: string; name?: string }[] } | null;
  configOptions?: SelectOption[] | null;
}

export type SelectorKind = "mode" | "model" | "effort";

const CATEGORY: Record<SelectorKind, string> = { mode: "mode", model: "model", effort: "thought_level" };

/** The values a select option offers, flattening groups. */
export function optionValues(opt: SelectOption): string[] {
  const out: string[] = [];
  const walk = (items: unknown) => {
    if (!Array.isArray(items)) return;
    for (const it of items as Record<string, unknown>[]) {
      if (!it || typeof it !== "object") continue;
      if (typeof it.value === "string") out.push(it.value);
      else if (Array.isArray(it.options)) walk(it.options);
    }
  };
  walk(opt.options);
  return out;
}

function configFor(state: AcpSessionState, kind: SelectorKind): SelectOption | undefined {
  return (state.configOptions ?? []).find((o) => o && o.category === CATEGORY[kind] && (o.type ?? "select") === "select");
}

/** The values the agent offers for a selector (for messages and capabilities). */
export function offered(state: AcpSessionState, kind: SelectorKind): string[] {
  const cfg = configFor(state, kind);
  if (cfg) return optionValues(cfg);
  if (kind === "mode") return (state.modes?.availableModes ?? []).map((m) => m.id);
  if (kind === "model") return (state.models?.availableModels ?? []).map((m) => m.modelId);
  return [];
}

export type SelectorCall = { method: string; params: Record<string, unknown> } | null;

/**
 * The request that sets `value`, null when it is already current, or a string saying why
 * the agent cannot take it.
 */
export function selectorCall(state: AcpSessionState, sessionId: string, kind: SelectorKind, value: string): SelectorCall | string {
  const cfg = configFor(state, kind);
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
export function markCurrent(state: AcpSessionState, kind: SelectorKind, value: string): void {
  const cfg = configFor(state, kind);
  if (cfg) cfg.currentValue = value;
  else if (kind === "mode" && state.modes) state.modes.currentModeId = value;
  else if (kind === "model" && state.models) state.models.currentModelId = value;
}

/** The current value of a selector, if the agent said. */
export function currentValue(state: AcpSessionState, kind: SelectorKind): string | undefined {
  const cfg = configFor(state, kind);
  if (cfg) return typeof cfg.currentValue === "string" ? cfg.currentValue : undefined;
  if (kind === "mode") return state.modes?.currentModeId;
  if (kind === "model") return state.models?.currentModelId;
  return undefined;
}

function listOf(ids: string[]): string {
  return ids.length ? ids.map((i) => JSON.stringify(i)).join(", ") : "none";
}
