// `options.mcpServers` (a4aa.v1 §11, R-MCP-1/2): one check for every lane, the literals the
// redactor must hide (R-REC-1), and each agent's native form of the servers. The session
// layer checks and feeds the redactor before anything is spawned; each lane renders.
import { registerTemp, releaseTemp, tempPrefix } from "../supervise/temp-files.js";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { JsonObject, McpCapabilities, McpHttpServer, McpServer, McpStdioServer } from "../../generated/ts/types.js";
import { checkLiterals } from "../env/policy.js";
import { A4aaError, errors } from "../errors.js";

export const isStdio = (s: McpServer): s is McpStdioServer => !("type" in s) || (s as { type?: unknown }).type === undefined;

const defined = (o: Record<string, string | undefined> | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o ?? {})) if (v !== undefined) out[k] = v;
  return out;
};

/**
 * R-MCP-2 and the names rule: unique names (invalid_params), each stdio server's `env`
 * checked by the environment boundary's own rules (env_refused, stage spawn). Throws.
 */
export function checkMcpServers(servers: readonly McpServer[] | undefined): void {
  const seen = new Set<string>();
  (servers ?? []).forEach((s, i) => {
    if (seen.has(s.name)) {
      throw errors.invalidParams("open", `options.mcpServers[${i}]: the name ${JSON.stringify(s.name)} is given twice; each MCP server needs its own name`);
    }
    seen.add(s.name);
    if (isStdio(s)) {
      const bad = checkLiterals(s.env, `options.mcpServers[${i}] (${s.name}).env`);
      if (bad) throw bad;
    }
  });
}

/** R-REC-1: every MCP `env` and `headers` value, as `NAME → value`, for the redactor. */
export function mcpLiterals(servers: readonly McpServer[] | undefined): [string, string][] {
  const out: [string, string][] = [];
  for (const s of servers ?? []) {
    const values = isStdio(s) ? s.env : (s as McpHttpServer).headers;
    for (const [name, value] of Object.entries(defined(values))) {
      out.push([`${s.name}.${name}`, value]);
      // `Bearer T`, `Basic T`: the token alone is as secret as the whole value.
      const token = /^(?:Bearer|Basic)\s+(\S+)\s*$/i.exec(value)?.[1];
      if (token) out.push([`${s.name}.${name}`, token]);
    }
  }
  return out;
}

/** The MCP transports an agent takes (`capabilities.mcp` folds `sse` into `http`). */
export interface McpTransports {
  stdio: boolean;
  http: boolean;
  sse: boolean;
}

export const NO_TRANSPORTS: McpTransports = { stdio: false, http: false, sse: false };

/** `capabilities.mcp` of these transports (§11: `http` covers `sse` too). */
export const mcpCapabilities = (t: McpTransports): McpCapabilities => ({ stdio: t.stdio, http: t.http || t.sse });

/**
 * R-MCP-1: refuses (unsupported_selector, stage open) a server whose transport `agent`
 * cannot take.
 */
export function checkMcpTransports(servers: readonly McpServer[] | undefined, t: McpTransports, agent: string): void {
  for (const s of servers ?? []) {
    const kind = isStdio(s) ? "stdio" : (s as McpHttpServer).type;
    if (t[kind]) continue;
    const takes = (["stdio", "http", "sse"] as const).filter((k) => t[k]);
    const how = takes.length ? `takes only ${takes.join(" and ")} MCP servers` : "cannot be handed MCP servers";
    throw errors.unsupportedSelector("open", `options.mcpServers: ${JSON.stringify(s.name)} is a ${kind} server, and ${agent} ${how}; drop it from the open or pick another agent`);
  }
}

/**
 * What an ACP agent takes, from its initialize `agentCapabilities.mcpCapabilities`: stdio
 * always (every ACP agent must), `http` and `sse` when offered.
 */
export function acpMcpTransports(agentCapabilities: unknown): McpTransports {
  const m = (agentCapabilities as { mcpCapabilities?: { http?: unknown; sse?: unknown } } | null)?.mcpCapabilities;
  return { stdio: true, http: m?.http === true, sse: m?.sse === true };
}

const pairs = (o: Record<string, string | undefined> | undefined) => Object.entries(defined(o)).map(([name, value]) => ({ name, value }));

/** One server in ACP's `McpServer` form (session/new, session/load). */
export function acpMcpServer(s: McpServer): JsonObject {
  if (isStdio(s)) return { name: s.name, command: s.command, args: s.args ?? [], env: pairs(s.env) };
  const h = s as McpHttpServer;
  return { type: h.type, name: h.name, url: h.url, headers: pairs(h.headers) };
}

/**
 * The ACP `mcpServers` of a session: the spec's verbatim objects, then the option's, an
 * option's entry replacing the spec's entry of the same name (in the spec's place).
 */
export function mergeAcpMcpServers(fromSpec: readonly JsonObject[] | undefined, fromOptions: readonly McpServer[] | undefined): JsonObject[] {
  const opts = new Map((fromOptions ?? []).map((s) => [s.name, acpMcpServer(s)] as const));
  const out = (fromSpec ?? []).map((o) => (typeof o.name === "string" && opts.has(o.name) ? opts.get(o.name)! : o));
  const taken = new Set(out.map((o) => o.name));
  for (const [name, o] of opts) if (!taken.has(name)) out.push(o);
  return out;
}

/** Claude Code's `--mcp-config` form (`{mcpServers: {name: …}}`). */
export function claudeMcpConfig(servers: readonly McpServer[]): { mcpServers: Record<string, JsonObject> } {
  const mcpServers: Record<string, JsonObject> = {};
  for (const s of servers) {
    if (isStdio(s)) mcpServers[s.name] = { type: "stdio", command: s.command, args: s.args ?? [], env: defined(s.env) };
    else mcpServers[s.name] = { type: s.type, url: s.url, headers: defined(s.headers) };
  }
  return { mcpServers };
}

/** The Gemini CLI settings form, also Qwen Code's (`httpUrl` streamable HTTP, `url` SSE). */
export function geminiMcpServers(servers: readonly McpServer[]): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const s of servers) {
    if (isStdio(s)) out[s.name] = { command: s.command, args: s.args ?? [], env: defined(s.env) };
    else out[s.name] = { [s.type === "http" ? "httpUrl" : "url"]: s.url, headers: defined(s.headers) };
  }
  return out;
}

/** Codex's `mcp_servers` tables (config.toml form; http only, no SSE), keyed `mcp_servers.<name>`. */
export function codexMcpConfig(servers: readonly McpServer[]): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const s of servers) {
    out[`mcp_servers.${s.name}`] = isStdio(s)
      ? { command: s.command, args: s.args ?? [], env: defined(s.env) }
      : { url: s.url, http_headers: defined((s as McpHttpServer).headers) };
  }
  return out;
}

/** A JSON value as TOML (strings, arrays, inline tables): what `codex -c key=value` parses. */
export function toToml(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v); // a JSON string is a TOML basic string (NUL is refused earlier)
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(toToml).join(", ")}]`;
  if (v && typeof v === "object") {
    return `{${Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)} = ${toToml(x)}`)
      .join(", ")}}`;
  }
  throw new TypeError(`no TOML form for ${String(v)}`);
}

/** `codex exec` config overrides: `-c mcp_servers.<name>={…}` per server. */
export function codexMcpArgs(servers: readonly McpServer[]): string[] {
  return Object.entries(codexMcpConfig(servers)).flatMap(([k, v]) => ["-c", `${k}=${toToml(v)}`]);
}

/** opencode's config (`OPENCODE_CONFIG_CONTENT`): `mcp` entries, local or remote. */
export function opencodeMcpConfig(servers: readonly McpServer[]): { mcp: Record<string, JsonObject> } {
  const mcp: Record<string, JsonObject> = {};
  for (const s of servers) {
    if (isStdio(s)) mcp[s.name] = { type: "local", command: [s.command, ...(s.args ?? [])], environment: defined(s.env), enabled: true };
    else mcp[s.name] = { type: "remote", url: s.url, headers: defined(s.headers), enabled: true };
  }
  return { mcp };
}

/** A private folder (0700) for files that hold MCP configuration; `remove()` at session close. */
export class PrivateDir {
  readonly path: string;
  /** `base`: the folder to make it in (default the system's temporary folder), created 0700. */
  constructor(prefix: string, base = tmpdir()) {
    mkdirSync(base, { recursive: true, mode: 0o700 });
    this.path = mkdtempSync(tempPrefix(base, prefix));
    chmodSync(this.path, 0o700);
    // Removed by the guard if the sidecar dies before the session closes.
    registerTemp(this.path);
  }
  /** Writes `name` (mode 0600) and returns its path. */
  write(name: string, text: string): string {
    const file = path.join(this.path, name);
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  }
  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
    releaseTemp(this.path);
  }
}
