// R-CUSTODY-1 at session/open: checks that custody can be given before anything is spawned,
// then swaps the agent's key for a placeholder and its API base URL for the proxy's.
import type { SessionOpenParams } from "../../generated/ts/types.js";
import type { CatalogEntry } from "../catalog/entries.js";
import { errors } from "../errors.js";
import type { CustodyRoute } from "./proxy.js";

/** What the agent sees instead of its key (any non-empty value the agent accepts as a key). */
export const PLACEHOLDER_KEY = "a4aa-custody-placeholder";

/** The route custody will register, or the refusal (unsupported_selector / auth_required) — before spawning. */
export function custodyRoute(params: SessionOpenParams, entry: CatalogEntry | undefined, env: Readonly<Record<string, string>>): Omit<CustodyRoute, "sessionId"> {
  if (!params.agent || !entry) {
    throw errors.unsupportedSelector("open", "custody: \"proxy\" needs a catalog agent (session/open {agent: {id}}) whose entry says how its model API is reached; a spec open cannot be proxied");
  }
  const api = entry.agent.modelApi;
  if (!api) {
    throw errors.unsupportedSelector("open", `custody: "proxy": the catalog entry ${JSON.stringify(entry.agent.id)} has no modelApi (a4aa does not know how this agent reaches its model API); open without custody`);
  }
  const key = env[api.keyVariable];
  if (!key) {
    throw errors.authRequired("open", `custody: "proxy" needs the real ${api.keyVariable} (agent.credentials or the open's env): the proxy adds it to each request, the agent gets a placeholder`);
  }
  const upstream = params.agent.upstream ?? env[api.baseUrlVariable] ?? api.upstream;
  return { upstream, keyHeader: api.keyHeader, ...(api.keyPrefix ? { keyPrefix: api.keyPrefix } : {}), key };
}

/** The agent's environment under custody: the placeholder key and the proxy's URL. */
export function custodyEnv(entry: CatalogEntry, env: Record<string, string>, baseUrl: string): void {
  const api = entry.agent.modelApi!;
  env[api.keyVariable] = PLACEHOLDER_KEY;
  env[api.baseUrlVariable] = baseUrl;
}
