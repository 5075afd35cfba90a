// Tool calls as every CLI names them: the a4aa kind, a title, the files touched, the
// result's text.
import type { ToolKind } from "../../../generated/ts/types.js";
import { isObj, obj, str } from "./loose-json.js";

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
