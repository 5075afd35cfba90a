// The `cli` lane: what a spec may ask of its CLI driver, and how a session of it starts.
import type { CliAgentSpec, PermissionPreset } from "../../../generated/ts/types.js";
import { errors } from "../../errors.js";
import { ensureNodePty } from "../../supervise/pty-process.js";
import type { LaneContext, LaneDriver, LaneSession, ResolvedOptions } from "../lane.js";
import { driverOf, mcpOf, type DriverEntry, resumableOf, rulesOf } from "./driver-registry.js";
import { openWithMcp, precheckMcp } from "./mcp-handover.js";
import { PtyGenericSession } from "./drivers/generic.js";
import { checkSelectors } from "./selector-rules.js";
import { StreamJsonSession } from "./stream-json-session.js";
import { PerTurnSession } from "./turn-session.js";

export const cliDriver: LaneDriver<CliAgentSpec> = {
  lane: "cli",

  // `ask` only where the CLI can ask the host (its control protocol).
  defaultPermission: (spec): PermissionPreset => (driverOf(spec).kind === "streamJson" ? "ask" : "readOnly"),

  precheck(spec: CliAgentSpec, options: ResolvedOptions, resume: string | undefined): void {
    const e = driverOf(spec);
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
    precheckMcp(spec.driver, mcpOf(e), options.mcpServers);
  },

  async open(ctx: LaneContext<CliAgentSpec>): Promise<LaneSession> {
    const e = driverOf(ctx.spec);
    return openWithMcp(ctx, mcpOf(e), (c) => openCli(c, e));
  },
};

async function openCli(ctx: LaneContext<CliAgentSpec>, e: DriverEntry): Promise<LaneSession> {
  if (e.kind === "streamJson") return StreamJsonSession.open(ctx, e.flavor);
  if (ctx.spec.driver === "generic" && ctx.spec.transport === "pty") {
    await ensureNodePty(); // a missing native build fails the open, not the first prompt
    return new PtyGenericSession(ctx);
  }
  return new PerTurnSession(ctx, e.driver);
}
