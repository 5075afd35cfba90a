// The catalog's entries as the sidecar holds them: the built-in ones (catalog/agents.json,
// through generated/ts/catalog.ts) and those of --registry files, each with its source.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CatalogAgent, CatalogLane } from "../../generated/ts/catalog-types.js";
import { BUILTIN_CATALOG } from "../../generated/ts/catalog.js";

export type { CatalogAgent, CatalogLane };

export interface CatalogEntry {
  agent: CatalogAgent;
  /** `builtin`, or the registry file it came from. */
  source: string;
}

export function builtinEntries(): CatalogEntry[] {
  return BUILTIN_CATALOG.agents.map((agent) => ({ agent, source: "builtin" }));
}

let root: string | undefined;
/** The a4aa package's own folder (from the sources, the build, or an installed package). */
export function packageRoot(): string {
  if (root) return root;
  for (let d = path.dirname(fileURLToPath(import.meta.url)); ; d = path.dirname(d)) {
    const pj = path.join(d, "package.json");
    if (existsSync(pj) && (JSON.parse(readFileSync(pj, "utf8")) as { name?: string }).name === "a4aa") return (root = d);
    if (path.dirname(d) === d) throw new Error("a4aa: cannot find the package's own folder");
  }
}

/** Fills the placeholders a catalog command line may hold: `${node}` and `${a4aa}`. */
export function expand(s: string): string {
  return s.replace(/\$\{node\}/g, process.execPath).replace(/\$\{a4aa\}/g, packageRoot());
}
