// Everything session/open checks before an id exists or anything is spawned: the spec (its own
// or the catalog's), the cwd, the environment boundary and the redactor's literals (§5,
// R-REC-1), MCP servers (R-MCP-2), custody (R-CUSTODY-1), the sandbox (R-SANDBOX-1), the
// lane's selectors and share.
import { statSync } from "node:fs";
import path from "node:path";
import type { ParamsOf } from "../../generated/ts/methods.js";
import type { AgentSpec, PermissionPreset } from "../../generated/ts/types.js";
import type { AgentCatalog } from "../catalog/catalog.js";
import { specForOpen } from "../catalog/open.js";
import { custodyPlan, type CustodyPlan } from "../custody/open.js";
import { buildChildEnv, openSecrets } from "../env/policy.js";
import { errors } from "../errors.js";
import { secrets } from "../journal/redact.js";
import type { AnyLaneDriver, ResolvedOptions } from "../lanes/lane.js";
import { checkMcpServers, mcpLiterals } from "../lanes/mcp-servers.js";
import { laneDriver } from "../lanes/registry.js";
import { trustWorkspaceForMcp } from "../lanes/gemini-trust.js";
import { checkSandbox, sandboxAsked, type SandboxAsk } from "../sandbox/open.js";
import type { Endpoint } from "../sandbox/relay.js";

export interface EnvRules {
  hostEnv: Readonly<Record<string, string | undefined>>;
  trustHostEnv: boolean;
}

/** The agent's environment (§5); the redactor learns every literal first (R-REC-1). */
export function childEnv(spec: AgentSpec, params: Parameters<typeof openSecrets>[0], rules: EnvRules): Record<string, string> {
  secrets.add(openSecrets(params));
  const env = buildChildEnv({ policy: spec.command.env, sessionEnv: params.env, hostEnv: rules.hostEnv, trustHostEnv: rules.trustHostEnv });
  if (!env.ok) throw env.error;
  return env.env;
}

export interface CheckedOpen {
  spec: AgentSpec;
  /** The resolved spec as the open result shows it (catalog opens). */
  shown?: AgentSpec;
  cwd: string;
  env: Record<string, string>;
  custody?: CustodyPlan;
  /** R-SANDBOX-1: what the session runs in, bubblewrap's path and the home files to copy in. */
  sandbox?: SandboxAsk & { bwrap: string; homeFiles: string[] };
  driver: AnyLaneDriver;
  permission: PermissionPreset;
  options: ResolvedOptions;
}

export async function checkOpen(
  params: ParamsOf<"session/open">,
  deps: EnvRules & { catalog: () => AgentCatalog; drivers?: (lane: AgentSpec["lane"]) => Promise<AnyLaneDriver>; modelEndpoint?: Endpoint },
): Promise<CheckedOpen> {
  const opened = specForOpen(params, deps.catalog);
  const ask = sandboxAsked(params.options?.sandbox);
  // A sandboxed session runs its own agent process: a shared one serves other sessions' cwds.
  const spec = ask ? unshared(opened.spec) : opened.spec;
  const shown = ask && opened.shown ? unshared(opened.shown) : opened.shown;
  const cwd = path.resolve(params.cwd ?? spec.command.cwd ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw errors.invalidParams("open", `cwd ${JSON.stringify(cwd)} is not an existing directory`);

  // R-REC-1: the redactor learns every literal before anything about this open is logged.
  secrets.add(mcpLiterals(params.options?.mcpServers));
  const env = childEnv(spec, params, deps);
  // R-MCP-2: the MCP servers' env by the same rules, before anything is spawned.
  checkMcpServers(params.options?.mcpServers);
  trustWorkspaceForMcp(spec, params.options?.mcpServers, env);
  // R-CUSTODY-1: refused before anything is spawned when it cannot be given.
  const entry = params.agent ? deps.catalog().find(params.agent.id) : undefined;
  const custody = params.options?.custody === "proxy" ? custodyPlan(params, entry, env) : undefined;
  // R-SANDBOX-1: refused before anything is spawned when the machine cannot give it.
  const sandbox = ask && { ...ask, bwrap: await checkSandbox(ask, { custody: !!custody, modelEndpoint: deps.modelEndpoint }), homeFiles: entry?.agent.sandboxHome ?? [] };

  const driver = await (deps.drivers ?? laneDriver)(spec.lane);
  const permission: PermissionPreset = params.options?.permission ?? driver.defaultPermission(spec);
  const options: ResolvedOptions = { ...params.options, permission };
  driver.precheck(spec, options, params.resume);
  if ((spec.lane === "acp" || spec.lane === "rpc") && spec.share && !driver.prewarm) {
    throw errors.unsupportedSelector("open", `share: the ${spec.lane} lane cannot share agent processes; open without share`);
  }
  return { spec, ...(shown ? { shown } : {}), cwd, env, ...(custody ? { custody } : {}), ...(sandbox ? { sandbox } : {}), driver, permission, options };
}

function unshared(spec: AgentSpec): AgentSpec {
  if (!("share" in spec) || spec.share === undefined) return spec;
  const { share: _share, ...rest } = spec;
  return rest as AgentSpec;
}

/** R-REMOTE-9: a draining sidecar, or one holding its --max-sessions, opens nothing (retryable). */
export function refuseWhenFull(at: { draining: boolean; held: number; max: number | undefined }): void {
  if (at.draining) {
    throw errors.draining("open", "this sidecar is draining (it received SIGTERM) and opens no more sessions: open the session on another sidecar, or retry later", { retryable: true });
  }
  if (at.max !== undefined && at.held >= at.max) {
    throw errors.atCapacity("open", `this sidecar holds its bound of ${at.max} sessions (--max-sessions): close a session, open it on another sidecar, or retry later`, { retryable: true });
  }
}
