// The protocol's numbers and rules as constants, for the sidecar (TS) and the Go and Python
// clients: the document's `x-limits` (limits that belong to no single field), every field's
// and param's `default` and bounds (`minimum`, `maximum`, `maxLength`, `maxItems`…), and
// the rules the schema states as x- tables (`x-preset-rules`, `x-session-process`). No
// default or limit that a host can see is written by hand anywhere else.
import type { JsonSchema, ProtocolModel } from "../model.js";
import { header, type Emitter } from "../emitter.js";

const BOUND_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"] as const;
type Scalar = string | number | boolean;

export interface Limit {
  name: string;
  value: number;
  unit: string;
  description: string;
}
export interface FieldFacts {
  type: string;
  field: string;
  default?: Scalar;
  bounds: [string, number][];
}
export interface PresetRule {
  preset: string;
  allow: string[];
  otherwise: string;
}

export interface LimitFacts {
  limits: Limit[];
  fields: FieldFacts[];
  presetRules: PresetRule[];
  sessionProcessDrivers: string[];
}

function isScalar(v: unknown): v is Scalar {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

export function limitFacts(model: ProtocolModel): LimitFacts {
  const raw = (model.document["x-limits"] ?? {}) as Record<string, { value: number; unit: string; description: string }>;
  const limits = Object.entries(raw).map(([name, l]) => ({ name, value: l.value, unit: l.unit, description: l.description }));
  const fields: FieldFacts[] = [];
  for (const type of model.typeNames) {
    const props = (model.types[type].properties ?? {}) as Record<string, JsonSchema>;
    for (const [field, s] of Object.entries(props)) {
      const bounds = BOUND_KEYWORDS.filter((k) => typeof s[k] === "number").map((k): [string, number] => [k, s[k] as number]);
      if (s.default !== undefined && !isScalar(s.default)) throw new Error(`limits: ${type}.${field}: only scalar defaults are supported`);
      if (s.default === undefined && !bounds.length) continue;
      fields.push({ type, field, default: s.default as Scalar | undefined, bounds });
    }
  }
  const preset = model.types.PermissionPreset?.["x-preset-rules"] as Record<string, { allow: string[]; otherwise: string }> | undefined;
  const presetRules = Object.entries(preset ?? {}).map(([p, r]) => ({ preset: p, allow: r.allow, otherwise: r.otherwise }));
  const sessionProcessDrivers = (model.types.CliDriver?.["x-session-process"] ?? []) as string[];
  return { limits, fields, presetRules, sessionProcessDrivers };
}

const lit = (v: Scalar) => JSON.stringify(v);
const words = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(/[^A-Za-z0-9]+/).filter(Boolean);
const pascal = (s: string) => words(s).map((w) => w[0].toUpperCase() + w.slice(1)).join("");
const snakeUpper = (s: string) => words(s).map((w) => w.toUpperCase()).join("_");

export function tsLimits(model: ProtocolModel): string {
  const f = limitFacts(model);
  const out: string[] = [header(model, "//").trimEnd(), 'import type { CliDriver, PermissionPreset, ToolKind } from "./types.js";', ""];
  out.push("/** The protocol's limits that belong to no single field (the document's `x-limits`). */");
  out.push("export const LIMITS = {");
  for (const l of f.limits) out.push(`  /** ${l.description} (${l.unit}) */`, `  ${l.name}: ${l.value},`);
  out.push("} as const;", "");
  const byType = (pick: (x: FieldFacts) => string | null) => {
    const types = [...new Set(f.fields.map((x) => x.type))];
    const lines: string[] = [];
    for (const t of types) {
      const entries = f.fields.filter((x) => x.type === t).map((x) => [x.field, pick(x)] as const).filter(([, v]) => v !== null);
      if (entries.length) lines.push(`  ${t}: { ${entries.map(([k, v]) => `${k}: ${v}`).join(", ")} },`);
    }
    return lines;
  };
  out.push("/** Every field's and param's `default`, by type (params: the method's params type) and field. */");
  out.push("export const DEFAULTS = {", ...byType((x) => (x.default === undefined ? null : lit(x.default))), "} as const;", "");
  out.push("/** Every field's and param's bounds (`minimum`, `maximum`, `maxLength`, `maxItems`…), by type and field. */");
  out.push(
    "export const BOUNDS = {",
    ...byType((x) => (x.bounds.length ? `{ ${x.bounds.map(([k, v]) => `${k}: ${v}`).join(", ")} }` : null)),
    "} as const;",
    "",
  );
  out.push("/** What a permission preset does with a tool kind (`PermissionPreset`'s `x-preset-rules`). */");
  out.push("export interface PresetRule {", "  /** The kinds allowed without asking. */", "  readonly allow: readonly ToolKind[];", "  /** What happens to every other kind. */", '  readonly otherwise: "ask" | "reject" | "allow";', "}", "");
  out.push("export const PRESET_RULES: { readonly [P in PermissionPreset]: PresetRule } = {");
  for (const r of f.presetRules) out.push(`  ${r.preset}: { allow: [${r.allow.map(lit).join(", ")}], otherwise: ${lit(r.otherwise)} },`);
  out.push("};", "");
  out.push("/** The CLI drivers whose program takes every turn of the session (`CliDriver`'s `x-session-process`); the others run one process per turn. */");
  out.push(`export const SESSION_PROCESS_DRIVERS: readonly CliDriver[] = [${f.sessionProcessDrivers.map(lit).join(", ")}];`);
  return out.join("\n") + "\n";
}

const goBound: Record<string, string> = {
  minimum: "Min",
  maximum: "Max",
  exclusiveMinimum: "ExclusiveMin",
  exclusiveMaximum: "ExclusiveMax",
  minLength: "MinLength",
  maxLength: "MaxLength",
  minItems: "MinItems",
  maxItems: "MaxItems",
};

export function goLimits(model: ProtocolModel): string {
  const f = limitFacts(model);
  const out: string[] = [header(model, "//").trimEnd(), "", "package a4aa", ""];
  for (const l of f.limits) out.push(`// Limit${pascal(l.name)}: ${l.description} (${l.unit})`, `const Limit${pascal(l.name)} = ${l.value}`, "");
  for (const x of f.fields) {
    const n = `${x.type}${pascal(x.field)}`;
    if (x.default !== undefined) out.push(`// Default${n} is the default of ${x.type}.${x.field}.`, `const Default${n} = ${lit(x.default)}`, "");
    for (const [k, v] of x.bounds) out.push(`// ${goBound[k]}${n} is the ${k} of ${x.type}.${x.field}.`, `const ${goBound[k]}${n} = ${v}`, "");
  }
  out.push("// SessionProcessDrivers are the CLI drivers whose program takes every turn of the session.");
  out.push(`var SessionProcessDrivers = []CliDriver{${f.sessionProcessDrivers.map(lit).join(", ")}}`);
  return out.join("\n").trimEnd() + "\n";
}

export function pythonLimits(model: ProtocolModel): string {
  const f = limitFacts(model);
  const out: string[] = [header(model, "#").trimEnd()];
  out.push('"""The protocol\'s limits and every field\'s default and bounds, from the schema."""', "");
  out.push("from typing import Tuple", "");
  for (const l of f.limits) out.push(`LIMIT_${snakeUpper(l.name)} = ${l.value}`, `"""${l.description} (${l.unit})"""`, "");
  for (const x of f.fields) {
    const n = `${snakeUpper(x.type)}_${snakeUpper(x.field)}`;
    if (x.default !== undefined) out.push(`DEFAULT_${n} = ${typeof x.default === "boolean" ? (x.default ? "True" : "False") : lit(x.default)}`);
    for (const [k, v] of x.bounds) out.push(`${snakeUpper(k)}_${n} = ${v}`);
  }
  out.push("", `SESSION_PROCESS_DRIVERS: Tuple[str, ...] = (${f.sessionProcessDrivers.map(lit).join(", ")}${f.sessionProcessDrivers.length === 1 ? "," : ""})`);
  out.push('"""The CLI drivers whose program takes every turn of the session."""');
  return out.join("\n").trimEnd() + "\n";
}

export const limitsEmitter: Emitter = {
  name: "limits",
  emit: (model) => [
    { path: "generated/ts/limits.ts", content: tsLimits(model) },
    { path: "clients/go/limits_gen.go", content: goLimits(model) },
    { path: "clients/python/src/a4aa/_generated_limits.py", content: pythonLimits(model) },
  ],
};
