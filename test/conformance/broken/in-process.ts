// The base of the broken implementations that break the sidecar's insides rather than its
// traffic: `patch` runs against the real modules, then the real `a4aa serve` runs in this
// very process (so a SIGKILL of the implementation is a SIGKILL of the sidecar).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const SRC = path.resolve(here, "../../../src");

/** Imports a compiled module of src/ (e.g. `supervise/guard.js`). */
export function real<T>(rel: string): Promise<T> {
  return import(pathToFileURL(path.join(SRC, rel)).href) as Promise<T>;
}

export async function runInProcess(patch: () => Promise<void> | void): Promise<void> {
  await patch();
  process.argv = [process.argv[0], path.join(SRC, "cli/main.js"), "serve", ...process.argv.slice(2)];
  await real("cli/main.js");
}
