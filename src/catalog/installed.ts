// Where a catalog lane's program is, on the sidecar's own PATH, found without running it.
import { existsSync } from "node:fs";
import { resolveProgram } from "../supervise/resolve-program.js";
import { expand, type CatalogLane } from "./entries.js";

/** The absolute path of the lane's program, or null when it is not installed here. */
export function findLaneProgram(lane: Pick<CatalogLane, "program" | "args">, hostPath: string | undefined, program?: string): string | null {
  // A bundled script named in the arguments (the example agent) must exist too.
  for (const a of lane.args) if (a.includes("${a4aa}") && !existsSync(expand(a))) return null;
  return findProgram(program ?? expand(lane.program), hostPath);
}

export function findProgram(program: string, hostPath: string | undefined): string | null {
  try {
    return resolveProgram(program, hostPath ? { PATH: hostPath } : {}, process.cwd());
  } catch {
    return null;
  }
}
