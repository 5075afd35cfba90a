// The `cli` lane: one driver per CLI (src/lanes/cli/<name>.ts). Per-turn CLIs share the
// turn runner (turn-process.ts); Claude Code and Qwen Code keep one process per session
// that speaks their stream-json control protocol (stream-json-session.ts).
import type { CliAgentSpec, CliDriver, PermissionPreset } from "../../../generated/ts/types.js";
import { errors } from "../../errors.js";
import { ensureNodePty } from "../../supervise/pty-process.js";
import type { LaneContext, LaneDriver, LaneSession, ResolvedOptions } from "../lane.js";
import { ampDriver } from "./amp.js";
import { claudeCodeFlavor } from "./claude-code.js";
import { codexDriver } from "./codex.js";
import { checkSelectors, type SelectorRules } from "./common.js";
import { cursorAgentDriver } from "./cursor-agent.js";
import { geminiDriver } from "./gemini.js";
import { genericDriver, PtyGenericSession } from "./generic.js";
import { opencodeDriver } from "./opencode.js";
import { qwenFlavor } from "./qwen.js";
import { StreamJsonSession, type StreamJsonFlavor } from "./stream-json-session.js";
import { PerTurnSession, type PerTurnDriver } from "./turn-session.js";

type Entry = { kind: "perTurn"; driver: PerTurnDriver } | { kind: "streamJson"; flavor: StreamJsonFlavor };

const DRIVERS: Record<CliDriver, Entry> = {
  claudeCode: { kind: "streamJson", flavor: claudeCodeFlavor },
  qwen: { kind: "streamJson", flavor: qwenFlavor },
  codex: { kind: "perTurn", driver: codexDriver },
  gemini: { kind: "perTurn", driver: geminiDriver },
  opencode: { kind: "perTurn", driver: opencodeDriver },
  cursorAgent: { kind: "perTurn", driver: cursorAgentDriver },
  amp: { kind: "perTurn", driver: ampDriver },
  generic: { kind: "perTurn", driver: genericDriver },
};

function entryOf(spec: CliAgentSpec): Entry {
  const e = DRIVERS[spec.driver];
  if (!e) throw errors.unsupportedSelector("open", `unknown cli driver ${JSON.stringify(spec.driver)}`);
  return e;
}

const rulesOf = (e: Entry): SelectorRules => (e.kind === "perTurn" ? e.driver.rules : e.flavor.rules);
const resumableOf = (e: Entry): boolean => (e.kind === "perTurn" ? e.driver.resume : true);

export const cliDriver: LaneDriver<CliAgentSpec> = {
  lane: "cli",

  // `ask` only where the CLI can ask the host (its control protocol).
  defaultPermission: (spec): PermissionPreset => (entryOf(spec).kind === "streamJson" ? "ask" : "readOnly"),

  precheck(spec: CliAgentSpec, options: ResolvedOptions, resume: string | undefined): void {
    const e = entryOf(spec);
    if (spec.transport === "pty" && spec.driver !== "generic") {
      throw errors.unsupportedSelector("open", `transport "pty" is only for the generic driver; ${spec.driver} streams JSON on pipes`);
    }
    if (spec.promptVia !== undefined && spec.driver !== "generic") {
      throw errors.unsupportedSelector("open", `promptVia is only for the generic driver`);
    }
    if (resume !== undefined && !resumableOf(e)) {
      throw errors.unsupportedSelector("open", `the ${spec.driver} driver cannot resume a session`);
    }
    checkSelectors(spec.driver, rulesOf(e), options, "open");
    if (e.kind === "streamJson") e.flavor.precheck?.(options, resume);
  },

  async open(ctx: LaneContext<CliAgentSpec>): Promise<LaneSession> {
    const e = entryOf(ctx.spec);
    if (e.kind === "streamJson") return StreamJsonSession.open(ctx, e.flavor);
    if (ctx.spec.driver === "generic" && ctx.spec.transport === "pty") {
      await ensureNodePty(); // a missing native build fails the open, not the first prompt
      return new PtyGenericSession(ctx);
    }
    return new PerTurnSession(ctx, e.driver);
  },
};
