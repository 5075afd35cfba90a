// `session/open {agent}` → the AgentSpec that runs (R-AGENT-1…3), decided before anything
// is spawned: the lane, its program as found on the sidecar's PATH, env policy `sanitized`
// with the entry's settings, the host's `set` and its (declared) credentials.
import type { AgentSelection, AgentSpec, EnvLiterals } from "../../generated/ts/types.js";
import { A4aaError, errors } from "../errors.js";
import { INHERITED_ENV } from "../env/policy.js";
import { expand, type CatalogAgent, type CatalogEntry, type CatalogLane } from "./entries.js";
import { findLaneProgram } from "./installed.js";

import { REDACTED } from "../env/redacted.js";
import { pathForPeople } from "../supervise/resolve-program.js";

export { REDACTED };

export interface ResolveContext {
  /** The sidecar's own environment: its PATH finds the programs, LC_* names are inherited. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The sidecar runs as root (entries' root settings apply). */
  isRoot: boolean;
}

export interface ResolvedAgent {
  spec: AgentSpec;
  /** The same spec with every credential value replaced by "<redacted>" (for the host, logs). */
  shown: AgentSpec;
}

export function installHint(agent: CatalogAgent): string {
  return agent.install ? `install it with: ${agent.install}` : "install it, or pass agent.program with its path";
}

function pickLane(entry: CatalogAgent, sel: AgentSelection, hostPath: string | undefined): { lane: CatalogLane; file: string } {
  const offered = entry.lanes.map((l) => l.lane);
  const candidates = sel.lane ? entry.lanes.filter((l) => l.lane === sel.lane) : entry.lanes;
  if (!candidates.length) {
    throw errors.unsupportedSelector("open",
      `agent ${JSON.stringify(entry.id)} offers the lane${offered.length > 1 ? "s" : ""} ${offered.join(", ")}, not ${JSON.stringify(sel.lane)}`,
    );
  }
  for (const lane of candidates) {
    const file = findLaneProgram(lane, hostPath, sel.program);
    if (file) return { lane, file };
  }
  const programs = [...new Set(candidates.map((l) => sel.program ?? expand(l.program)))].map((p) => JSON.stringify(p)).join(" or ");
  throw errors.spawnFailed(
    `agent ${JSON.stringify(entry.id)} is not installed: ${programs} is not on the sidecar's PATH (${pathForPeople(hostPath)}); ${installHint(entry)}`,
  );
}

export function resolveAgent(entry: CatalogEntry, sel: AgentSelection, ctx: ResolveContext): ResolvedAgent {
  const agent = entry.agent;
  const declared = new Set(agent.credentials.map((c) => c.name));
  for (const name of Object.keys(sel.credentials ?? {})) {
    if (!declared.has(name)) {
      throw errors.envRefused("spawn",
        `agent.credentials: ${name} is not a credential variable of ${JSON.stringify(agent.id)} (${[...declared].join(", ") || "it declares none"}); pass other variables in agent.set (R-AGENT-3)`,
      );
    }
  }
  const { lane, file } = pickLane(agent, sel, ctx.hostEnv.PATH);
  if (sel.share && !lane.share) {
    throw errors.unsupportedSelector("open",
      `agent.share: ${JSON.stringify(agent.id)} on the ${lane.lane} lane does not hold many sessions per process (the catalog offers share on: ${
        entry.agent.lanes.filter((l) => l.share).map((l) => l.lane).join(", ") || "no lane"
      }); open it without share`,
    );
  }
  const lc = Object.keys(ctx.hostEnv).filter((k) => /^LC_[A-Za-z0-9_]+$/.test(k));
  const inherit = [...new Set([...INHERITED_ENV, ...lc, ...(sel.inherit ?? [])])];
  const set: EnvLiterals = {
    ...(agent.settings ?? {}),
    ...(lane.settings ?? {}),
    ...(ctx.isRoot ? (agent.root?.set ?? {}) : {}),
    ...(sel.set ?? {}),
    ...(sel.credentials ?? {}),
  };
  const base = {
    id: agent.id,
    command: { program: file, args: [...lane.args.map(expand), ...(sel.args ?? [])], env: { policy: "sanitized" as const, inherit, set } },
  };
  const spec = (
    lane.lane === "cli"
      ? { ...base, lane: "cli", driver: lane.driver! }
      : lane.lane === "rpc"
        ? { ...base, lane: "rpc", dialect: lane.dialect! }
        : { ...base, lane: "acp" }
  ) as AgentSpec;
  // §13: the selection's share over the catalog's defaults for the lane.
  if (sel.share && lane.share && spec.lane !== "cli") spec.share = { ...lane.share, ...sel.share };
  // Whatever way a declared credential arrived (credentials or set), its value is not shown.
  const shownSet = Object.fromEntries(Object.entries(set).map(([k, v]) => [k, declared.has(k) ? REDACTED : v]));
  const shown = { ...spec, command: { ...spec.command, env: { ...base.command.env, set: shownSet } } } as AgentSpec;
  return { spec, shown };
}
