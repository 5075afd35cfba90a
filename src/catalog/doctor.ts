// `a4aa doctor`'s checks: for each catalog agent, what is wrong here and the one fix for it.
// Credential variables are reported by name only, never by value.
import type { AgentEntry } from "../../generated/ts/types.js";
import type { AgentCatalog } from "./catalog.js";

export interface DoctorProblem {
  what: string;
  fix: string;
}

export interface DoctorReport {
  entry: AgentEntry;
  usable: boolean;
  problems: DoctorProblem[];
}

export interface DoctorInput {
  catalog: AgentCatalog;
  /** The shell's environment, where credential names are looked for. */
  env: Readonly<Record<string, string | undefined>>;
  isRoot: boolean;
}

export async function runDoctor({ catalog, env, isRoot }: DoctorInput): Promise<DoctorReport[]> {
  const { agents } = await catalog.list(true);
  return agents.map((entry) => {
    const agent = catalog.find(entry.id)!.agent;
    const problems: DoctorProblem[] = [];
    if (!entry.installed) {
      const programs = [...new Set(entry.lanes.map((l) => l.program))].join(" or ");
      problems.push({ what: `not installed (${programs} is not on PATH)`, fix: agent.install ? `install it: ${agent.install}` : "install it" });
      return { entry, usable: false, problems };
    }
    let usable = true;
    if (!entry.version && !agent.bundled && !/(^|\/)(npx|uvx)$/.test(entry.path ?? "")) {
      usable = false;
      problems.push({ what: `${entry.path} --version printed no version within 5 s`, fix: `run ${entry.path} --version yourself; reinstall it${agent.install ? `: ${agent.install}` : ""}` });
    } else if (entry.version && entry.testedVersion && entry.version !== entry.testedVersion) {
      const pin = agent.package?.registry === "npm" ? `npm install -g ${agent.package.name}@${entry.testedVersion}` : agent.install;
      problems.push({
        what: `version ${entry.version}; a4aa was tested with ${entry.testedVersion}`,
        fix: `it may work; to get the tested one: ${pin ?? `install ${entry.testedVersion}`}`,
      });
    }
    for (const c of agent.credentials) {
      if (c.required && !env[c.name]) {
        problems.push({
          what: `${c.name} is not set in this shell (${c.description})`,
          fix: `export ${c.name}=… (a4aa run passes it to the agent from this shell; a host passes it in session/open agent.credentials)`,
        });
      }
    }
    if (isRoot && agent.root?.refusesBypass) {
      const set = Object.keys(agent.root.set ?? {});
      problems.push({
        what: `running as root: it refuses its bypass-permission modes${set.length ? ` unless ${set.map((k) => `${k}=${agent.root!.set![k]}`).join(" ")}` : ""}`,
        fix: set.length ? `nothing for sessions a4aa opens (it sets ${set.join(", ")}); when running ${entry.lanes[0].program} yourself: export ${set.map((k) => `${k}=${agent.root!.set![k]}`).join(" ")}` : "run as an ordinary user",
      });
    }
    return { entry, usable, problems };
  });
}
