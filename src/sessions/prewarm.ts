// agents/prewarm (§13): shared processes for a spec, started and initialized before any
// session/open needs them — refused for a spec that does not opt in, or a lane that cannot share.
import type { ParamsOf, ResultOf } from "../../generated/ts/methods.js";
import type { AgentSpec } from "../../generated/ts/types.js";
import { errors } from "../errors.js";
import type { AnyLaneDriver, ShareSetup } from "../lanes/lane.js";
import { laneDriver } from "../lanes/registry.js";
import { childEnv, type EnvRules } from "./open-checks.js";

export interface PrewarmDeps {
  env: EnvRules;
  drivers?: (lane: AgentSpec["lane"]) => Promise<AnyLaneDriver>;
  /** What the agent process runs with besides its spec and env (the manager's processSettings). */
  settings: Omit<ShareSetup, "spec" | "env" | "logger" | "gate" | "pool">;
  logger: ShareSetup["logger"];
  gate: ShareSetup["gate"];
  pool: ShareSetup["pool"];
}

export async function prewarmShared(spec: AgentSpec, params: ParamsOf<"agents/prewarm">, d: PrewarmDeps): Promise<ResultOf<"agents/prewarm">> {
  if ((spec.lane !== "acp" && spec.lane !== "rpc") || !spec.share) {
    throw errors.invalidParams(
      "open",
      `agents/prewarm: the spec of ${JSON.stringify(spec.id)} does not opt in to shared processes; add share: {} (an acp or rpc spec, or agent.share for a catalog agent)`,
    );
  }
  const env = childEnv(spec, params, d.env);
  const driver = await (d.drivers ?? laneDriver)(spec.lane);
  driver.precheck(spec, { permission: driver.defaultPermission(spec) }, undefined);
  if (!driver.prewarm) throw errors.unsupportedSelector("open", `share: the ${spec.lane} lane cannot share agent processes`);
  const r = await driver.prewarm({ spec, env, ...d.settings, logger: d.logger, gate: d.gate, pool: d.pool }, params.count ?? 1);
  d.logger.info(`prewarmed ${spec.lane} agent ${JSON.stringify(spec.id)}: ${r.started} started, ${r.processes} live`);
  return r;
}
