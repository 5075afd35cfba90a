// Reading an open session's `sessionState` (OpenResult): which modes, models and efforts the
// agent offers and which is current. Config options (ACP's newer mechanism) win over the
// older `modes` / legacy `models` where both exist. The sidecar's ACP lane judges selectors
// with these same functions, so a host and the sidecar cannot disagree on what is offered.
import type { SessionConfigOption, SessionState } from "../../generated/ts/types.js";

/** The session options a4aa maps onto an agent's session state. */
export type SelectorKind = "mode" | "model" | "effort";

/** The ACP config option category of each selector. */
const CATEGORY: Record<SelectorKind, string> = { mode: "mode", model: "model", effort: "thought_level" };

/** The select config option that holds a selector, if the agent offers one. */
export function selectorOption(state: SessionState, kind: SelectorKind): SessionConfigOption | undefined {
  return (state.configOptions ?? []).find((o) => o && o.category === CATEGORY[kind] && (o.type ?? "select") === "select");
}

/** The values a select option offers, flattening groups. */
export function optionValues(opt: SessionConfigOption): string[] {
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

/** The values the agent offers for a selector. */
export function offeredValues(state: SessionState, kind: SelectorKind): string[] {
  const cfg = selectorOption(state, kind);
  if (cfg) return optionValues(cfg);
  if (kind === "mode") return (state.modes?.availableModes ?? []).map((m) => m.id);
  if (kind === "model") return (state.models?.availableModels ?? []).map((m) => m.modelId);
  return [];
}

/** The current value of a selector, if the agent said. */
export function currentSelectorValue(state: SessionState, kind: SelectorKind): string | undefined {
  const cfg = selectorOption(state, kind);
  if (cfg) return typeof cfg.currentValue === "string" ? cfg.currentValue : undefined;
  if (kind === "mode") return state.modes?.currentModeId;
  if (kind === "model") return state.models?.currentModelId;
  return undefined;
}
