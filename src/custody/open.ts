// R-CUSTODY-1 at session/open: checks that custody can be given before anything is spawned,
// then gives the agent a placeholder instead of its key and the proxy instead of its API.
import type { SessionOpenParams } from "../../generated/ts/types.js";
import type { CatalogModelApi } from "../../generated/ts/catalog-types.js";
import type { AgentSpec } from "../../generated/ts/types.js";
import type { CatalogEntry } from "../catalog/entries.js";
import { errors } from "../errors.js";
import type { Logger } from "../log.js";
import type { CustodyTraffic } from "../telemetry/facts.js";
import { custodyProxy } from "./endpoint.js";
import { TOKEN_KEY_PREFIX, type CustodyRoute } from "./proxy.js";

/** What the agent sees instead of its key when the token is in its base URL. */
export const PLACEHOLDER_KEY = "a4aa-custody-placeholder";

/** An open that custody can serve: where its requests go, with which key, and how the agent is pointed. */
export interface CustodyPlan {
  route: Omit<CustodyRoute, "sessionId" | "tallies">;
  api: CatalogModelApi;
}

/** The plan, or the refusal (unsupported_selector / auth_required) — before spawning. */
export function custodyPlan(params: SessionOpenParams, entry: CatalogEntry | undefined, env: Readonly<Record<string, string>>): CustodyPlan {
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
  const upstream = params.agent.upstream ?? (api.baseUrlVariable ? env[api.baseUrlVariable] : undefined) ?? api.upstream;
  return { api, route: { upstream, keyHeader: api.keyHeader, ...(api.keyPrefix ? { keyPrefix: api.keyPrefix } : {}), key } };
}

/**
 * The agent under custody: its key variable holds a placeholder, its other key variables are
 * gone, and whatever points it at its API points at the proxy. Only a plain base URL variable
 * carries the token; a base URL on the command line (readable by every local user), or in
 * settings the agent may put on a child's command line, carries none: the key is the token
 * then. Changes `env`; returns the spec with the entry's base URL arguments before its own.
 */
export function underCustody(plan: CustodyPlan, env: Record<string, string>, spec: AgentSpec, proxyUrl: string, token: string): AgentSpec {
  const { api } = plan;
  const inArgv = api.baseUrlArgs !== undefined || api.baseUrlSettings !== undefined;
  const baseUrl = inArgv ? proxyUrl : `${proxyUrl}/s/${token}`;
  const fill = (template: string) => template.replaceAll("{baseUrl}", baseUrl);
  for (const name of api.otherKeyVariables ?? []) delete env[name];
  env[api.keyVariable] = inArgv ? `${TOKEN_KEY_PREFIX}${token}` : PLACEHOLDER_KEY;
  if (api.baseUrlVariable) env[api.baseUrlVariable] = baseUrl;
  for (const [name, template] of Object.entries(api.baseUrlSettings ?? {})) if (template !== undefined) env[name] = fill(template);
  if (!api.baseUrlArgs) return spec;
  return { ...spec, command: { ...spec.command, args: [...api.baseUrlArgs.map(fill), ...spec.command.args] } };
}

/**
 * Registers the session with the sidecar's proxy (started if need be) and points its agent at
 * it: the spec the agent runs with, and the session's traffic (which the agent's total in the
 * facts, `agentTraffic`, grows with).
 */
export async function enterCustody(
  sessionId: string,
  plan: CustodyPlan,
  o: { env: Record<string, string>; spec: AgentSpec; logger: Logger; agentTraffic: CustodyTraffic },
): Promise<{ spec: AgentSpec; traffic: CustodyTraffic }> {
  const proxy = await custodyProxy(o.logger);
  const traffic = { requests: 0, requestBytes: 0, responseBytes: 0 };
  const token = proxy.register({ sessionId, ...plan.route, tallies: [traffic, o.agentTraffic] });
  return { spec: underCustody(plan, o.env, o.spec, proxy.url, token), traffic };
}
