// The session of a per-turn CLI (codex, gemini, opencode, cursorAgent, amp, generic):
// no process between turns; each prompt starts one, continuing the CLI's own session by
// its resume flag once the CLI has told its id.
import { TEXT_ONLY } from "../prompt-content.js";
import type { AgentInfo, Capabilities, CliAgentSpec, SessionState, TurnOutcome, Usage } from "../../../generated/ts/types.js";
import type { LaneContext, LaneSession, TurnInput } from "../lane.js";
import type { McpHandover } from "./mcp-handover.js";
import { checkSelectors, type SelectorRules } from "./selector-rules.js";
import { TurnProcess, type LineParser, type TextParser } from "./turn-process.js";

export interface TurnBuild {
  ctx: LaneContext<CliAgentSpec>;
  input: TurnInput;
  /** The CLI's session id, when known (resume, pre-assigned, or told by an earlier turn). */
  nativeSessionId: string | null;
  /** The session already exists on the CLI's side: use its resume flag. */
  continuing: boolean;
}

/** What a per-turn driver keeps between turns (e.g. Codex's running usage totals). */
export interface DriverMemo {
  usageTotal?: Usage;
}

export interface PerTurnDriver {
  readonly name: string;
  readonly rules: SelectorRules;
  readonly resume: boolean;
  /** Variables the CLI needs to run headless (added over the session's environment). */
  env?(ctx: LaneContext<CliAgentSpec>): Record<string, string>;
  /** A native id to pre-assign to a new session, if the CLI takes one. */
  newSessionId?(): string;
  /** The driver's own flags (`args`, placed before extraArgs) and what follows extraArgs (`tail`). */
  command(t: TurnBuild): { args: string[]; tail: string[]; stdin?: string };
  parser(t: TurnBuild, memo: DriverMemo): LineParser | TextParser;
  /** How the CLI takes `options.mcpServers` (R-MCP-1); absent: it cannot, they are refused. */
  readonly mcp?: McpHandover;
}

export const END_GRACE_MS = 1000;
export const KILL_GRACE_MS = 2000;

export function capabilitiesOf(rules: SelectorRules, resume: boolean, permissions: boolean): Capabilities {
  return {
    lane: "cli",
    resume,
    cancel: true,
    permissions,
    images: false,
    content: TEXT_ONLY,
    mcp: { stdio: false, http: false },
    selectors: { model: rules.model !== false, mode: rules.mode !== false, effort: rules.effort !== false, permission: rules.permission.length > 0 },
  };
}

export class PerTurnSession implements LaneSession {
  nativeSessionId: string | null;
  readonly capabilities: Capabilities;
  readonly agentInfo: AgentInfo | null = null;
  readonly sessionState: SessionState | null = null;
  alive = true;
  private continuing: boolean;
  private current: TurnProcess | null = null;
  private lastUnclean: string | undefined;
  private readonly memo: DriverMemo = {};

  constructor(
    private readonly ctx: LaneContext<CliAgentSpec>,
    private readonly driver: PerTurnDriver,
  ) {
    this.capabilities = capabilitiesOf(driver.rules, driver.resume, false);
    this.nativeSessionId = ctx.resume ?? driver.newSessionId?.() ?? null;
    this.continuing = ctx.resume !== undefined;
  }

  checkTurn(input: TurnInput): void {
    checkSelectors(this.driver.name, this.driver.rules, { model: input.model, effort: input.effort }, "prompt");
  }

  async prompt(input: TurnInput): Promise<TurnOutcome> {
    const { ctx, driver } = this;
    const t: TurnBuild = { ctx, input, nativeSessionId: this.nativeSessionId, continuing: this.continuing };
    const cmd = driver.command(t);
    const spec = ctx.spec;
    const env = { ...(driver.env?.(ctx) ?? {}), ...ctx.env };
    const tp = new TurnProcess({
      ctx,
      args: [...spec.command.args, ...cmd.args, ...(spec.extraArgs ?? []), ...cmd.tail],
      env,
      stdin: cmd.stdin,
      parser: driver.parser(t, this.memo),
      endGraceMs: END_GRACE_MS,
      killGraceMs: KILL_GRACE_MS,
      onSessionId: (id) => this.told(id),
    });
    this.current = tp;
    try {
      const outcome = await tp.run();
      // A turn that got this far created the session on the CLI's side.
      if (this.nativeSessionId) this.continuing = true;
      return outcome;
    } catch (e) {
      if ((e as { code?: string }).code === "agent_exited" && !tp.isCancelled) this.alive = false;
      if (this.nativeSessionId && (e as { code?: string }).code !== "spawn_failed") this.continuing = true;
      throw e;
    } finally {
      const stop = tp.lastStop;
      this.lastUnclean = stop && !stop.clean ? `processes ${stop.survivors.join(", ")} survived` : undefined;
      if (this.current === tp) this.current = null;
    }
  }

  private told(id: string): void {
    if (id === this.nativeSessionId) return;
    this.nativeSessionId = id;
    this.ctx.emit({ type: "sessionInfo", nativeSessionId: id });
  }

  async cancel(): Promise<void> {
    await this.current?.cancel();
  }

  async close(): Promise<{ clean: boolean; detail?: string }> {
    const tp = this.current;
    if (tp) {
      await tp.cancel();
      const r = await tp.stop();
      if (r && !r.clean) return { clean: false, detail: `processes ${r.survivors.join(", ")} of ${this.ctx.spec.command.program} survived the stop ladder` };
      return { clean: true };
    }
    if (this.lastUnclean) return { clean: false, detail: this.lastUnclean };
    return { clean: true };
  }
}

