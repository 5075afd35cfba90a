// `initialize` and `initialized` of a `codex app-server` process: once per process, whether
// the process is a session's own or shared (shared-codex-process.ts).
import type * as C from "../../../generated/codex/types.js";
import { errors } from "../../errors.js";
import type { LaneContext } from "../lane.js";
import type { LaneChannel } from "../lane-channel.js";

export const CODEX_NAME = "codex app-server";
export const CODEX_MODE_HINT = "`codex app-server`";

/** `initialize` and `initialized`: once per app-server process. */
export async function codexInitialize(agent: Pick<LaneChannel, "request" | "notify">, ctx: Pick<LaneContext, "clientName" | "clientVersion">): Promise<void> {
  await agent.request<C.InitializeResponse>(
    "initialize",
    { clientInfo: { name: ctx.clientName, title: null, version: ctx.clientVersion }, capabilities: null } satisfies C.InitializeParams,
    "initialize",
    (e) => errors.initializeFailed("initialize", `initialize: ${e.message}`),
  );
  agent.notify("initialized");
}
