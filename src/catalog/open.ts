// The one place session/open meets the catalog: `spec` or `agent`, exactly one.
import type { ParamsOf } from "../../generated/ts/methods.js";
import type { AgentSpec } from "../../generated/ts/types.js";
import { A4aaError, errors } from "../errors.js";
import type { AgentCatalog } from "./catalog.js";

export interface OpenSpec {
  spec: AgentSpec;
  /** For `agent` opens: the resolved spec, credentials redacted, for the open result. */
  shown?: AgentSpec;
}

export function specForOpen(params: ParamsOf<"session/open">, catalog: () => AgentCatalog): OpenSpec {
  if (params.spec && params.agent) {
    throw errors.invalidParams("open", "session/open takes either spec or agent, not both");
  }
  if (params.spec) return { spec: params.spec };
  if (!params.agent) throw errors.invalidParams("open", "session/open needs spec (an AgentSpec) or agent ({id}, see agents/list)");
  const r = catalog().resolve(params.agent);
  return { spec: r.spec, shown: r.shown };
}
