// The acp lane: agents that speak the Agent Client Protocol (v1) on stdio.
import type { AcpAgentSpec } from "../../../generated/ts/types.js";
import type { LaneDriver } from "../lane.js";
import { acpShareKey, openSharedAcpSession, startSharedAcpProcess } from "./shared-acp-process.js";
import { openAcpSession } from "./acp-session.js";

export const acpDriver: LaneDriver<AcpAgentSpec> = {
  lane: "acp",
  // An ACP agent asks before acting; the host can always be asked.
  defaultPermission: () => "ask",
  // Modes, models and efforts are the agent's to offer: they are checked right after the
  // handshake (the agent is then shut down before the error is answered). Resume is
  // likewise known only from the agent's capabilities. Presets are a4aa's own: all honoured.
  precheck: () => undefined,
  open: (ctx) => (ctx.spec.share && ctx.pool ? openSharedAcpSession(ctx) : openAcpSession(ctx)),
  prewarm: (setup, count) => setup.pool.prewarm(acpShareKey(setup), (setup.spec as AcpAgentSpec).share ?? {}, () => startSharedAcpProcess(setup), count),
};

