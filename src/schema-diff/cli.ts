// What the schema-diff commands share: strict flags and running a main with the CLI's
// exit-code conventions (0/1 as judged, 2 for usage errors and unreadable input).
import { parseArgs as parseNodeArgs } from "node:util";
import { DocumentError } from "../openrpc/model.js";
import type { DiffResult } from "./diff.js";

export class UsageError extends Error {
  constructor(message: string, readonly helpCommand: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Parses flags strictly: an unknown flag or a missing value is a UsageError, never ignored. */
export function parseArgs(
  argv: string[],
  spec: Record<string, { value?: boolean }>,
  helpCommand: string,
): { flags: Record<string, string | true>; positionals: string[] } {
  const options = Object.fromEntries(Object.entries(spec).map(([k, s]) => [k, { type: s.value ? ("string" as const) : ("boolean" as const) }]));
  try {
    const { values, positionals } = parseNodeArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { flags: values as Record<string, string | true>, positionals };
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ""), helpCommand);
  }
}

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
