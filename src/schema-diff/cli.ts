// What the schema-diff commands share: running a main with the CLI's exit-code conventions.
import { UsageError } from "../cli/args.js";
import { DocumentError } from "./document.js";
import type { DiffResult } from "./diff.js";

export const DEFAULT_SCHEMA = "schema/a4aa.v1.openrpc.json";
export const DEFAULT_CHANGELOG = "schema/CHANGELOG.md";

/** True when a change breaks hosts and carries a promise (what `--exit-code` fails on). */
export const breaksHosts = (d: DiffResult) => d.changes.some((c) => c.hosts === "break" && !c.experimental);

/** Exit 0/1 as main returns; 2 for usage errors and unreadable input. */
export function run(name: string, main: (argv: string[]) => Promise<number> | number): void {
  Promise.resolve()
    .then(() => main(process.argv.slice(2)))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (err: unknown) => {
        const msg = err instanceof Error ? err.message : String(err);
        process.stderr.write(`${name}: ${msg}${err instanceof UsageError ? `. Run '${err.helpCommand}' for usage.` : ""}\n`);
        if (!(err instanceof UsageError || err instanceof DocumentError) && err instanceof Error && process.env.A4AA_DEBUG) {
          process.stderr.write(`${err.stack}\n`);
        }
        process.exitCode = 2;
      },
    );
}
