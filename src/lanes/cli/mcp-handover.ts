// How a CLI driver takes `options.mcpServers` (R-MCP-1): which transports, and the flags
// and variables that carry them. The lane adds those to the session's command and
// environment, keeps any file in a private folder, and removes it when the session closes.
import type { AgentInfo, Capabilities, CliAgentSpec, McpCapabilities, McpServer, SessionState, TurnOutcome } from "../../../generated/ts/types.js";
import type { LaneContext, LaneSession, TurnInput } from "../lane.js";
import { checkMcpTransports, mcpCapabilities, NO_TRANSPORTS, PrivateDir, type McpTransports } from "../mcp-servers.js";

export interface McpHandover {
  /** The transports the CLI takes. */
  readonly caps: McpTransports;
  /**
   * The servers as flags (placed after the spec's `command.args`, before the driver's own)
   * and variables (over the session's environment). `dir()` makes the private folder.
   */
  render(servers: readonly McpServer[], dir: (base?: string) => PrivateDir, env: Readonly<Record<string, string>>): { args?: string[]; env?: Record<string, string> };
}

/** R-MCP-1 at precheck: unsupported_selector (stage open) before anything is spawned. */
export function precheckMcp(driver: string, handover: McpHandover | undefined, servers: readonly McpServer[] | undefined): void {
  if (servers?.length) checkMcpTransports(servers, handover?.caps ?? NO_TRANSPORTS, `the ${driver} driver`);
}

/**
 * Opens a session with the servers handed over: `open` gets the context with the flags and
 * variables added; the session reports `capabilities.mcp` and removes the folder at close.
 */
export async function openWithMcp(
  ctx: LaneContext<CliAgentSpec>,
  handover: McpHandover | undefined,
  open: (ctx: LaneContext<CliAgentSpec>) => LaneSession | Promise<LaneSession>,
): Promise<LaneSession> {
  const mcp = mcpCapabilities(handover?.caps ?? NO_TRANSPORTS);
  const servers = ctx.options.mcpServers ?? [];
  if (!servers.length || !handover) return withMcp(await open(ctx), mcp, null);
  let dir: PrivateDir | null = null;
  try {
    const r = handover.render(servers, (base) => (dir ??= new PrivateDir(ctx.spec.driver, base)), ctx.env);
    const spec = { ...ctx.spec, command: { ...ctx.spec.command, args: [...ctx.spec.command.args, ...(r.args ?? [])] } };
    const session = await open({ ...ctx, spec, env: { ...ctx.env, ...(r.env ?? {}) } });
    return withMcp(session, mcp, dir);
  } catch (e) {
    (dir as PrivateDir | null)?.remove();
    throw e;
  }
}

function withMcp(inner: LaneSession, mcp: McpCapabilities, dir: PrivateDir | null): LaneSession {
  return new McpSession(inner, { ...inner.capabilities, mcp }, dir);
}

/** A session that reports its `capabilities.mcp` and whose close also removes its MCP folder. */
class McpSession implements LaneSession {
  constructor(
    private readonly inner: LaneSession,
    readonly capabilities: Capabilities,
    private readonly dir: PrivateDir | null,
  ) {}
  get nativeSessionId(): string | null {
    return this.inner.nativeSessionId;
  }
  get agentInfo(): AgentInfo | null {
    return this.inner.agentInfo;
  }
  get sessionState(): SessionState | null {
    return this.inner.sessionState;
  }
  get alive(): boolean {
    return this.inner.alive;
  }
  checkTurn(input: TurnInput): void {
    this.inner.checkTurn(input);
  }
  prompt(input: TurnInput): Promise<TurnOutcome> {
    return this.inner.prompt(input);
  }
  cancel(): Promise<void> {
    return this.inner.cancel();
  }
  async close(): Promise<{ clean: boolean; detail?: string }> {
    try {
      return await this.inner.close();
    } finally {
      this.dir?.remove();
    }
  }
}
