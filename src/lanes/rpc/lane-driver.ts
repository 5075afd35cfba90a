// The rpc lane: agents that speak a JSON-RPC dialect on stdio. One dialect so far:
// `codexAppServer` (`codex app-server`).
import type { RpcAgentSpec } from "../../../generated/ts/types.js";
import { errors } from "../../errors.js";
import type { LaneDriver } from "../lane.js";
import { codexShareKey, openSharedCodexSession, startSharedCodexProcess } from "./shared-codex-process.js";
import { CODEX_MCP, openCodexSession } from "./codex-session.js";
import { checkMcpTransports } from "../mcp-servers.js";

export const rpcDriver: LaneDriver<RpcAgentSpec> = {
  lane: "rpc",
  // Codex asks before acting (approval requests), so the host can always be asked.
  defaultPermission: () => "ask",
  precheck: (spec, options) => {
    if (spec.dialect !== "codexAppServer") throw errors.unsupportedSelector("open", `unknown rpc dialect ${JSON.stringify(spec.dialect)}`);
    // Per-thread config overrides (`thread/start` / `thread/resume` `config`), as `codex exec -c`.
    checkMcpTransports(options.mcpServers, CODEX_MCP, "codex app-server");
    if (options.mode !== undefined) {
      throw errors.unsupportedSelector("open", `mode ${JSON.stringify(options.mode)}: codex app-server has no modes; use options.permission`);
    }
  },
  open: (ctx) => (ctx.spec.share && ctx.pool ? openSharedCodexSession(ctx) : openCodexSession(ctx)),
  // One app-server holds many threads (§13).
  prewarm: (setup, count) => setup.pool.prewarm(codexShareKey(setup), (setup.spec as RpcAgentSpec).share ?? {}, () => startSharedCodexProcess(setup), count),
};
