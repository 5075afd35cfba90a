// What each CLI driver can map to flags (its selector rules), and the check every driver
// runs on them before anything is spawned (R-OPEN-1) and before each turn.
import type { Effort, PermissionPreset } from "../../../generated/ts/types.js";
import { errors } from "../../errors.js";

export interface SelectorRules {
  /** Allowed model ids; `true` for any id, `false` for none. */
  model: boolean | readonly string[];
  mode: false | readonly string[];
  effort: false | readonly Effort[];
  permission: readonly PermissionPreset[];
  /** Per-turn `model` / `effort` overrides. */
  turnModel: boolean;
  turnEffort: boolean;
}

export interface SelectorValues {
  model?: string;
  mode?: string;
  effort?: Effort;
  permission?: PermissionPreset;
}

/** Throws unsupported_selector for the first value the driver cannot map to a flag. */
export function checkSelectors(driver: string, rules: SelectorRules, v: SelectorValues, stage: "open" | "prompt"): void {
  const refuse = (what: string, value: string, allowed: readonly string[] | boolean) =>
    errors.unsupportedSelector(
      stage,
      `the ${driver} driver cannot honour ${what} ${JSON.stringify(value)}` +
        (Array.isArray(allowed) && allowed.length ? ` (supported: ${allowed.join(", ")})` : ` (the CLI has no flag for ${what})`),
    );
  if (v.model !== undefined) {
    if (stage === "prompt" && !rules.turnModel) throw refuse("a per-turn model", v.model, false);
    if (rules.model === false || (Array.isArray(rules.model) && !rules.model.includes(v.model))) throw refuse("model", v.model, rules.model);
  }
  if (v.effort !== undefined) {
    if (stage === "prompt" && !rules.turnEffort) throw refuse("a per-turn effort", v.effort, false);
    if (!rules.effort || !rules.effort.includes(v.effort)) throw refuse("effort", v.effort, rules.effort || false);
  }
  if (v.mode !== undefined && (!rules.mode || !rules.mode.includes(v.mode))) throw refuse("mode", v.mode, rules.mode || false);
  if (v.permission !== undefined && !rules.permission.includes(v.permission)) throw refuse("permission preset", v.permission, rules.permission);
}
