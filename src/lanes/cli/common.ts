// Small helpers the CLI drivers share: reading loosely typed JSON from agents, tool kinds,
// usage arithmetic, and the selector checks every driver runs before spawning.
import type { Effort, JsonValue, PermissionPreset, ToolKind, Usage } from "../../../generated/ts/types.js";
import { errors } from "../../errors.js";
import { isBlank } from "../../transport/line-reader.js";

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const obj = (v: unknown): Obj => (isObj(v) ? v : {});
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const json = (v: unknown): JsonValue => (v === undefined ? null : (v as JsonValue));

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Tool names of every supported CLI, lower-cased, by kind. */
const KINDS: [ToolKind, string[]][] = [
  ["execute", ["bash", "shell", "run_shell_command", "exec_command", "command_execution", "local_shell", "terminal", "powershell"]],
  ["read", ["read", "read_file", "readmanyfiles", "read_many_files", "view", "notebookread", "cat"]],
  ["edit", ["edit", "multiedit", "write", "write_file", "replace", "notebookedit", "patch", "apply_patch", "file_change", "str_replace", "create", "edit_file"]],
  ["delete", ["delete", "delete_file", "rm"]],
  ["move", ["move", "rename", "mv"]],
  ["search", ["grep", "glob", "ls", "list", "list_directory", "search_file_content", "find", "codebase_search", "semsearch", "search", "web_search_local"]],
  ["fetch", ["webfetch", "web_fetch", "websearch", "web_search", "google_web_search", "fetch"]],
  ["think", ["think", "todowrite", "todo_write", "todoread", "exitplanmode", "exit_plan_mode", "plan"]],
];
const KIND_BY_NAME = new Map<string, ToolKind>(KINDS.flatMap(([k, names]) => names.map((n) => [n, k] as [string, ToolKind])));

/** The kind of a tool by its CLI name (`Bash`, `read_file`, Cursor's `shellToolCall`, …). */
export function toolKind(name: string): ToolKind {
  const n = name.toLowerCase().replace(/toolcall$/, "");
  return KIND_BY_NAME.get(n) ?? (n.startsWith("mcp__") ? "other" : "other");
}

/** A short title for a tool call: its name and the most telling argument. */
export function toolTitle(name: string, input: unknown): string {
  const i = obj(input);
  const hint = str(i.command) ?? str(i.cmd) ?? str(i.file_path) ?? str(i.filePath) ?? str(i.path) ?? str(i.pattern) ?? str(i.url) ?? str(i.query);
  const h = hint ?? (Array.isArray(i.command) ? (i.command as unknown[]).join(" ") : undefined);
  return h ? `${name}: ${h.length > 200 ? h.slice(0, 200) + "…" : h}` : name;
}

/** Files a tool call touches, from its input. */
export function toolLocations(input: unknown): { path: string }[] | undefined {
  const i = obj(input);
  const p = str(i.file_path) ?? str(i.filePath) ?? str(i.absolute_path) ?? str(i.notebook_path) ?? (str(i.path) && !str(i.pattern) ? str(i.path) : undefined);
  return p ? [{ path: p }] : undefined;
}

/** Text of a tool result, whatever its shape (a string, content blocks, an object). */
export function resultTexts(content: unknown): string[] {
  if (typeof content === "string") return content ? [content] : [];
  if (Array.isArray(content)) {
    return content.flatMap((b) => (typeof b === "string" ? [b] : isObj(b) && typeof b.text === "string" ? [b.text] : []));
  }
  if (isObj(content)) {
    const t = str(content.output) ?? str(content.stdout) ?? str(content.text) ?? str(content.content);
    if (t !== undefined) return t ? [t] : [];
  }
  return [];
}

export function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return { ...b };
  const out: Usage = { ...a };
  for (const k of Object.keys(b) as (keyof Usage)[]) {
    const v = b[k];
    if (v === undefined) continue;
    if (k === "contextWindowTokens" || k === "contextUsedTokens") out[k] = v;
    else out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/** `now - before` per field: a turn's own figures from running totals (never negative). */
export function diffUsage(now: Usage, before: Usage | undefined): Usage {
  if (!before) return { ...now };
  const out: Usage = {};
  for (const k of Object.keys(now) as (keyof Usage)[]) {
    const v = now[k];
    if (v === undefined) continue;
    if (k === "contextWindowTokens" || k === "contextUsedTokens") out[k] = v;
    else out[k] = Math.max(0, v - (before[k] ?? 0));
  }
  return out;
}

export function cleanUsage(u: Usage): Usage | undefined {
  const out: Usage = {};
  for (const [k, v] of Object.entries(u) as [keyof Usage, number | undefined][]) if (v !== undefined) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** Anthropic-style usage (`input_tokens`, `cache_read_input_tokens`, …) as a4aa Usage. */
export function anthropicUsage(u: unknown, costUsd?: number): Usage | undefined {
  const x = obj(u);
  const input = num(x.input_tokens);
  const output = num(x.output_tokens);
  const cacheRead = num(x.cache_read_input_tokens) ?? num(x.cached_input_tokens);
  const cacheWrite = num(x.cache_creation_input_tokens);
  const usage: Usage = {
    inputTokens: input === undefined && cacheRead === undefined && cacheWrite === undefined ? undefined : (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0),
    outputTokens: output,
    cachedInputTokens: cacheRead,
    reasoningTokens: num(x.reasoning_tokens) ?? num(x.thoughts_tokens),
    costUsd,
  };
  if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) {
    usage.totalTokens = num(x.total_tokens) ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  }
  return cleanUsage(usage);
}

// ---- selectors ---------------------------------------------------------------------

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

/**
 * A stdout line of a JSON-lines CLI, parsed; a line that is not JSON is passed on as a `raw`
 * event (nothing the CLI says is lost) and gives undefined, as does a blank one.
 */
export function parseJsonLine(buf: Buffer, emitRaw: (text: string) => void): unknown {
  if (isBlank(buf)) return undefined;
  const text = buf.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    emitRaw(text);
    return undefined;
  }
}
