// `a4aa run --mcp-config FILE|JSON`: MCP servers for the session (`options.mcpServers`, §11),
// in a4aa's own form (an array of McpServer) or in the `{"mcpServers": {NAME: {...}}}` form of
// `.mcp.json`, Claude Code's `--mcp-config` and Cursor, so that a file people already have works.
import { existsSync, readFileSync } from "node:fs";
import type { McpServer } from "../../../generated/ts/types.js";
import { validateMcpServer } from "../../../generated/ts/validators.js";

export class McpConfigError extends Error {}

function parse(value: string): unknown {
  const text = /^\s*[[{]/.test(value) ? value : existsSync(value) ? readFileSync(value, "utf8") : undefined;
  if (text === undefined) throw new McpConfigError(`--mcp-config ${JSON.stringify(value)} is neither JSON nor a file`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new McpConfigError(`--mcp-config is not valid JSON: ${(e as Error).message}`);
  }
}

/** One `mcpServers` entry of the common form, as an McpServer (`type` stdio is implied by `command`). */
function fromNamed(name: string, v: unknown): unknown {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new McpConfigError(`--mcp-config: server ${JSON.stringify(name)} must be an object ({"command", …} or {"type", "url", …})`);
  const { type, ...rest } = v as Record<string, unknown>;
  if (type === undefined || type === "stdio") return { name, ...rest };
  // Some tools write "streamable-http" / "streamableHttp" for MCP's streamable HTTP transport.
  const t = typeof type === "string" && /^streamable[-_]?http$/i.test(type) ? "http" : type;
  return { name, type: t, ...rest };
}

/** The servers of one --mcp-config value, checked against the schema's McpServer. */
export function readMcpConfig(value: string): McpServer[] {
  const doc = parse(value);
  let list: unknown[];
  if (Array.isArray(doc)) list = doc;
  else if (doc && typeof doc === "object" && "mcpServers" in doc) {
    const servers = (doc as { mcpServers: unknown }).mcpServers;
    if (Array.isArray(servers)) list = servers;
    else if (servers && typeof servers === "object") list = Object.entries(servers).map(([name, v]) => fromNamed(name, v));
    else throw new McpConfigError("--mcp-config: `mcpServers` must be an object of servers by name, or an array");
  } else {
    throw new McpConfigError('--mcp-config wants [{"name", "command", …}] or {"mcpServers": {"NAME": {"command", …}}}');
  }
  const validate = validateMcpServer;
  return list.map((s, i) => {
    if (!validate(s)) {
      const what = (s as { name?: unknown })?.name ?? `#${i + 1}`;
      const why = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).slice(0, 3).join("; ");
      throw new McpConfigError(`--mcp-config: server ${JSON.stringify(what)} is not an MCP server a4aa knows: ${why}`);
    }
    return s as McpServer;
  });
}
