// A shared `codex app-server` process (§13): one process, one `initialize`, many threads,
// Codex's messages routed by their `threadId` (src/lanes/shared-process.ts). Of the
// notifications naming no thread, the account's rate limits go to every session; the rest
// (configWarning…) belong to no one session and are dropped.
// A closed session's thread is unsubscribed (thread/unsubscribe).
import { handshaken } from "../agent-process.js";
import type { RpcAgentSpec } from "../../../generated/ts/types.js";
import type { PipeProcess } from "../../supervise/spawn.js";
import type { LaneContext, ShareSetup } from "../lane.js";
import { SharedChannel, SharedProcess, laneShareKey, shareSetupOf, startSharedProcess } from "../shared-process.js";
import { CodexLaneSession } from "./codex-session.js";
import { CODEX_MODE_HINT, CODEX_NAME, codexInitialize } from "./initialize.js";

export function codexShareKey(s: ShareSetup): string {
  return laneShareKey(s, { dialect: (s.spec as RpcAgentSpec).dialect });
}

/** The thread a Codex message is about: `threadId`, or the thread of thread/started. */
function threadOf(_method: string, params: unknown): string | null {
  const p = params as { threadId?: unknown; thread?: { id?: unknown } } | null;
  if (typeof p?.threadId === "string") return p.threadId;
  return typeof p?.thread?.id === "string" ? p.thread.id : null;
}

export class SharedCodexProcess extends SharedProcess {
  constructor(ctx: LaneContext, proc: PipeProcess) {
    super(ctx, proc, {
      name: `shared ${CODEX_NAME}`,
      modeHint: CODEX_MODE_HINT,
      requireVersion: false,
      writeVersion: false,
      onUnmatchedResponse: (m) => ctx.logger.debug(`codex answered an unknown request id ${JSON.stringify(m.id)}`, ctx.sessionId),
      idName: "threadId",
      broadcast: (method) => method === "account/rateLimits/updated",
      sessionOf: threadOf,
    });
  }
}

export function startSharedCodexProcess(s: ShareSetup): Promise<SharedCodexProcess> {
  return startSharedProcess(s, (ctx, proc) => new SharedCodexProcess(ctx, proc), (c) => codexInitialize(c.agent, s));
}

/** A session whose thread runs on a shared app-server: a live one with room, else a fresh one. */
export async function openSharedCodexSession(ctx: LaneContext<RpcAgentSpec>): Promise<CodexLaneSession> {
  const s = shareSetupOf(ctx);
  const lease = await s.pool.acquire(codexShareKey(s), ctx.spec.share ?? {}, () => startSharedCodexProcess(s));
  const session = new CodexLaneSession(
    ctx,
    (h) => new SharedChannel(lease.proc, lease, h, ctx, (threadId) => ({ method: "thread/unsubscribe", params: { threadId } })),
    true,
  );
  return handshaken(session);
}
