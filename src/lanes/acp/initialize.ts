// `initialize` (and `authenticate`) of an ACP agent process: once per process, whether the
// process is a session's own or shared (shared-acp-process.ts).
import type * as A from "../../../generated/acp/types.js";
import { validateInitializeResponse } from "../../../generated/acp/validators.js";
import type { AcpAgentSpec, AgentInfo } from "../../../generated/ts/types.js";
import { errors } from "../../errors.js";
import { authFailure } from "../credential-hints.js";
import type { LaneContext } from "../lane.js";
import type { LaneChannel } from "../lane-channel.js";

export const ACP_PROTOCOL_VERSION = 1;

export const ACP_MODE_HINT = "ACP, e.g. `gemini --acp`, `qwen --acp`, `opencode acp`, `claude-agent-acp`";

/** What the agent process said in `initialize`: the same for every session on it. */
export interface AcpInit {
  agentInfo: AgentInfo | null;
  caps: A.AgentCapabilities;
}

/** `initialize` (and `authenticate`): once per agent process. */
export async function acpInitialize(
  agent: Pick<LaneChannel, "request">,
  o: Pick<LaneContext<AcpAgentSpec>, "spec" | "clientName" | "clientVersion">,
): Promise<AcpInit> {
  const { spec } = o;
  const cc = spec.clientCapabilities;
  const init = await agent.request<A.InitializeResponse>(
    "initialize",
    {
      protocolVersion: ACP_PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: !!cc?.fs?.readTextFile, writeTextFile: !!cc?.fs?.writeTextFile },
        terminal: !!cc?.terminal,
      },
      clientInfo: { name: o.clientName, version: o.clientVersion },
    },
    "initialize",
    (e) => errors.initializeFailed("initialize", `initialize: ${e.message}`),
  );
  if (!validateInitializeResponse(init)) {
    throw errors.initializeFailed("initialize", `the agent's initialize answer is not ACP: ${JSON.stringify(validateInitializeResponse.errors?.[0] ?? {})}`);
  }
  if (init.protocolVersion !== ACP_PROTOCOL_VERSION) {
    throw errors.initializeFailed("initialize", `the agent speaks ACP protocol version ${JSON.stringify(init.protocolVersion)}; a4aa speaks version 1`);
  }
  let agentInfo: AgentInfo | null = null;
  const info = init.agentInfo as { name?: unknown; version?: unknown; title?: unknown } | null | undefined;
  if (info && typeof info.name === "string") {
    agentInfo = { name: info.name, version: typeof info.version === "string" ? info.version : "" };
    if (typeof info.title === "string") agentInfo.title = info.title;
  }
  if (spec.authMethodId) {
    await agent.request("authenticate", { methodId: spec.authMethodId }, "initialize", (e) =>
      authFailure(spec, "initialize", `authenticate ${spec.authMethodId}: ${e.message}`),
    );
  }
  return { agentInfo, caps: (init.agentCapabilities ?? {}) as A.AgentCapabilities };
}
