// A shared ACP agent process (§13): one process, one `initialize`, many ACP sessions, the
// agent's messages routed by their `sessionId` (src/lanes/shared-process.ts).
import { handshaken } from "../agent-process.js";
import type { AcpAgentSpec } from "../../../generated/ts/types.js";
import type { PipeProcess } from "../../supervise/spawn.js";
import type { LaneContext, ShareSetup } from "../lane.js";
import { SharedChannel, SharedProcess, laneShareKey, shareSetupOf, startSharedProcess } from "../shared-process.js";
import { AcpLaneSession } from "./acp-session.js";
import { ACP_MODE_HINT, acpInitialize, type AcpInit } from "./initialize.js";
import { parseTextChunkLine } from "./plain-chunk.js";

/** The sharing key of an ACP spec: the process's launch, plus what `initialize` tells the agent. */
export function acpShareKey(s: ShareSetup): string {
  const spec = s.spec as AcpAgentSpec;
  return laneShareKey(s, { clientCapabilities: spec.clientCapabilities ?? null, authMethodId: spec.authMethodId ?? null });
}

export class SharedAcpProcess extends SharedProcess {
  init!: AcpInit;

  constructor(ctx: LaneContext, proc: PipeProcess) {
    super(ctx, proc, {
      name: "the shared agent",
      modeHint: ACP_MODE_HINT,
      requireVersion: false,
      writeVersion: true,
      parseCommon: parseTextChunkLine,
      idName: "sessionId",
      broadcast: () => false,
      sessionOf: (_method, params) => {
        const sid = (params as { sessionId?: unknown } | null)?.sessionId;
        return typeof sid === "string" ? sid : null;
      },
    });
  }

  /** The agent offers `session/close` (ACP sessionCapabilities.close). */
  get canCloseSessions(): boolean {
    return !!(this.init.caps.sessionCapabilities as { close?: unknown } | undefined)?.close;
  }

  async handshake(): Promise<void> {
    this.init = await acpInitialize(this.agent, this.ctx as LaneContext<AcpAgentSpec>);
  }
}

export function startSharedAcpProcess(s: ShareSetup): Promise<SharedAcpProcess> {
  return startSharedProcess(s, (ctx, proc) => new SharedAcpProcess(ctx, proc), (c) => c.handshake());
}

/** A session on a shared process: a live one with room, else a fresh one (§13). */
export async function openSharedAcpSession(ctx: LaneContext<AcpAgentSpec>): Promise<AcpLaneSession> {
  const s = shareSetupOf(ctx);
  const lease = await s.pool.acquire(acpShareKey(s), ctx.spec.share ?? {}, () => startSharedAcpProcess(s));
  const conn = lease.proc;
  const session = new AcpLaneSession(
    ctx,
    // The agent forgets the session through session/close when it offers it.
    (h) => new SharedChannel(conn, lease, h, ctx, (id) => (conn.canCloseSessions ? { method: "session/close", params: { sessionId: id } } : null)),
    conn.init,
    true,
  );
  return handshaken(session);
}
