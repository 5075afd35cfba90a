// The agents catalog of one sidecar: built-in entries plus those of --registry files;
// `agents/list` (installed programs, probed versions cached for the sidecar's life) and
// the resolution of `session/open {agent}`.
import type { AgentEntry, AgentSelection, AgentsListResult } from "../../generated/ts/types.js";
import { A4aaError, errors } from "../errors.js";
import { registryEntries } from "./acp-registry.js";
import { builtinEntries, expand, type CatalogEntry } from "./entries.js";
import { findLaneProgram } from "./installed.js";
import { probeVersion } from "./probe.js";
import { packageVersion } from "../version.js";
import { resolveAgent, type ResolvedAgent } from "./resolve.js";

export interface CatalogOptions {
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** ACP registry files (`a4aa serve --registry`), read once, here. */
  registryFiles?: string[];
  /** Where collisions are reported. */
  warn?: (msg: string) => void;
  isRoot?: boolean;
}

export class AgentCatalog {
  readonly entries: CatalogEntry[];
  private readonly versions = new Map<string, Promise<string | undefined>>();
  private readonly isRoot: boolean;

  /** Throws RegistryFileError when a registry file is unreadable or malformed. */
  constructor(private readonly o: CatalogOptions) {
    const builtin = builtinEntries();
    const taken = new Set(builtin.map((e) => e.agent.id));
    this.entries = [...builtin, ...registryEntries(o.registryFiles ?? [], taken, o.warn ?? (() => undefined))];
    this.isRoot = o.isRoot ?? (typeof process.getuid === "function" && process.getuid() === 0);
  }

  find(id: string): CatalogEntry | undefined {
    return this.entries.find((e) => e.agent.id === id);
  }

  resolve(sel: AgentSelection): ResolvedAgent {
    const entry = this.find(sel.id);
    if (!entry) {
      throw errors.unknownAgent("open",
        `no agent ${JSON.stringify(sel.id)} in the catalog; known ids: ${this.entries.map((e) => e.agent.id).join(", ")} (agents/list)`,
      );
    }
    return resolveAgent(entry, sel, { hostEnv: this.o.hostEnv, isRoot: this.isRoot });
  }

  /** Where the entry's default lane's program is (the first installed lane), or null. */
  installedPath(entry: CatalogEntry): string | null {
    for (const lane of entry.agent.lanes) {
      const file = findLaneProgram(lane, this.o.hostEnv.PATH);
      if (file) return file;
    }
    return null;
  }

  /** `--version` of an installed program, once per program for the catalog's life. */
  version(entry: CatalogEntry, file: string): Promise<string | undefined> {
    // npx / uvx lanes would fetch the package to answer: only the runner's own version is known.
    if (/(^|\/)(npx|uvx)$/.test(file)) return Promise.resolve(undefined);
    if (entry.agent.bundled) return Promise.resolve(packageVersion());
    const args = entry.agent.versionArgs ?? ["--version"];
    const key = `${file}\0${args.join("\0")}`;
    let p = this.versions.get(key);
    if (!p) {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(entry.agent.settings ?? {})) if (v !== undefined) env[k] = v;
      for (const k of ["PATH", "HOME", "LANG", "TMPDIR"]) if (this.o.hostEnv[k]) env[k] = this.o.hostEnv[k]!;
      p = probeVersion(file, args, env);
      this.versions.set(key, p);
    }
    return p;
  }

  async list(probe = false): Promise<AgentsListResult> {
    const agents = await Promise.all(
      this.entries.map(async (e): Promise<AgentEntry> => {
        const a = e.agent;
        const file = this.installedPath(e);
        const out: AgentEntry = {
          id: a.id,
          name: a.name,
          description: a.description,
          lanes: a.lanes.map((l) => ({
            lane: l.lane,
            ...(l.driver ? { driver: l.driver } : {}),
            ...(l.dialect ? { dialect: l.dialect } : {}),
            ...(l.share ? { share: { ...l.share } } : {}),
            program: expand(l.program),
            args: l.args.map(expand),
          })),
          installed: file !== null,
          credentials: a.credentials.map((c) => ({ ...c })),
          source: e.source,
        };
        if (file) out.path = file;
        if (a.testedVersion) out.testedVersion = a.testedVersion;
        if (a.install) out.install = a.install;
        if (probe && file) {
          const v = await this.version(e, file);
          if (v) out.version = v;
        }
        return out;
      }),
    );
    return { agents };
  }
}
