// The session of a per-turn CLI (codex, gemini, opencode, cursorAgent, amp, generic):
// no process between turns; each prompt starts one, continuing the CLI's own session by
// its resume flag once the CLI has told its id.
import type { AgentInfo, Capabilities, CliAgentSpec, ContentCapabilities, SessionState, TurnOutcome, Usage } from "../../../generated/ts/types.js";
import { blocksText } from "../content-text.js";
import type { LaneContext, LaneSession, TurnInput } from "../lane.js";
import type { McpHandover } from "./mcp-handover.js";
import { PromptFiles } from "./prompt-files.js";
import { checkSelectors, type SelectorRules } from "./selector-rules.js";
import { TurnProcess, type LineParser, type TextParser } from "./turn-process.js";

export interface TurnBuild {
  ctx: LaneContext<CliAgentSpec>;
  /** The turn; its `text` holds every block but images (content-text.ts), in order. */
  input: TurnInput;
  /** The prompt's images as files in the turn's private folder (drivers whose content.image is true). */
  images: string[];
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
  /** What the CLI takes beside text (default TEXT_WITH_FILES: no images). */
  readonly content?: ContentCapabilities;
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

/**
 * A CLI that takes text only: embedded files are inlined as delimited text blocks and links
 * given as paths (content-text.ts), images refused (unsupported_content).
 */
export const TEXT_WITH_FILES: ContentCapabilities = { image: false, resource: true, resourceLink: true };

export function capabilitiesOf(rules: SelectorRules, resume: boolean, permissions: boolean, content: ContentCapabilities = TEXT_WITH_FILES): Capabilities {
  return {
    lane: "cli",
    resume,
    cancel: true,
    permissions,
    images: content.image,
    content,
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
  /** A cancel that came while the turn's files were being written (before its process). */
  private cancelEarly = false;
  /** The running turn, settled once its files are removed too (close waits for it). */
  private inflight: Promise<unknown> | null = null;
  private lastUnclean: string | undefined;
  private readonly memo: DriverMemo = {};

  constructor(
    private readonly ctx: LaneContext<CliAgentSpec>,
    private readonly driver: PerTurnDriver,
  ) {
    this.capabilities = capabilitiesOf(driver.rules, driver.resume, false, driver.content);
    this.nativeSessionId = ctx.resume ?? driver.newSessionId?.() ?? null;
    this.continuing = ctx.resume !== undefined;
  }

  checkTurn(input: TurnInput): void {
    checkSelectors(this.driver.name, this.driver.rules, { model: input.model, effort: input.effort }, "prompt");
  }

  prompt(input: TurnInput): Promise<TurnOutcome> {
    const turn = this.turn(input);
    const settled = turn.catch(() => undefined);
    this.inflight = settled;
    void settled.then(() => {
      if (this.inflight === settled) this.inflight = null;
    });
    return turn;
  }

  private async turn(input: TurnInput): Promise<TurnOutcome> {
    const { ctx, driver } = this;
    this.cancelEarly = false;
    const files = driver.content?.image ? await PromptFiles.write(input.blocks) : PromptFiles.none;
    try {
      return await this.run({ ctx, input: { ...input, text: blocksText(input.blocks) }, images: files.images, nativeSessionId: this.nativeSessionId, continuing: this.continuing });
    } finally {
      // After the turn has ended, however it ended: the process group is gone by now.
      await files.remove().catch((e) => ctx.logger.warn(`could not remove ${files.dir}: ${(e as Error).message}`, ctx.sessionId));
    }
  }

  private async run(t: TurnBuild): Promise<TurnOutcome> {
    const { ctx, driver } = this;
    const cmd = driver.command(t);
    const spec = ctx.spec;
    const env = { ...(driver.env?.(ctx) ?? {}), ...ctx.env, ...traceEnv(t.input) };
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
    if (this.cancelEarly) await tp.cancel();
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
    if (this.current) await this.current.cancel();
    else this.cancelEarly = true;
  }

  async close(): Promise<{ clean: boolean; detail?: string }> {
    const tp = this.current;
    if (!tp && this.inflight) {
      // The turn is writing its files: it starts nothing, and its files go.
      this.cancelEarly = true;
      await this.inflight;
    }
    if (tp) {
      await tp.cancel();
      const r = await tp.stop();
      // The turn's files go before close answers (the sidecar may exit right after).
      await this.inflight;
      if (r && !r.clean) return { clean: false, detail: `processes ${r.survivors.join(", ")} of ${this.ctx.spec.command.program} survived the stop ladder` };
      return { clean: true };
    }
    if (this.lastUnclean) return { clean: false, detail: this.lastUnclean };
    return { clean: true };
  }
}


/** R-OTEL-2: the turn's W3C trace context, as per-turn CLIs read it (OpenTelemetry's env carriers). */
function traceEnv(input: { traceparent?: string; tracestate?: string }): Record<string, string> {
  if (!input.traceparent) return {};
  return { TRACEPARENT: input.traceparent, ...(input.tracestate ? { TRACESTATE: input.tracestate } : {}) };
}
