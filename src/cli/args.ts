// Command-line parsing for every `a4aa` command, on node:util's strict parseArgs: an unknown
// flag, a missing value or a stray argument is a UsageError (exit 2), never ignored.
import { parseArgs as parseStrict, type ParseArgsConfig } from "node:util";

export interface FlagSpec {
  /** Takes a value (`--flag V` or `--flag=V`). */
  value?: boolean;
  /** May be given more than once; the values come as a list. */
  multiple?: boolean;
  /** A one-letter alias (`-h`). */
  short?: string;
}

export interface ParsedArgs {
  /** By long name: `true` for a given switch, the value (or values, `multiple`) otherwise. */
  flags: Record<string, string | true | string[]>;
  positionals: string[];
}

export class UsageError extends Error {
  constructor(
    message: string,
    readonly helpCommand: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

/** `help` (`--help`, `-h`) is accepted by every command without being declared. */
export function parseArgs(argv: string[], spec: Record<string, FlagSpec>, helpCommand: string): ParsedArgs {
  const options: NonNullable<ParseArgsConfig["options"]> = { help: { type: "boolean", short: "h" } };
  for (const [name, s] of Object.entries(spec)) {
    options[name] = { type: s.value ? "string" : "boolean", ...(s.multiple ? { multiple: true } : {}), ...(s.short ? { short: s.short } : {}) };
  }
  let parsed: ReturnType<typeof parseStrict>;
  try {
    parsed = parseStrict({ args: argv, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError(usageMessage(e as Error & { code?: string }, spec), helpCommand);
  }
  const flags: ParsedArgs["flags"] = {};
  for (const [name, v] of Object.entries(parsed.values)) {
    if (v === false || v === undefined) continue;
    flags[name] = v as string | true | string[];
  }
  return { flags, positionals: parsed.positionals };
}

// node:util's messages are long and name the internals: say what is wrong in a few words.
function usageMessage(e: Error & { code?: string }, spec: Record<string, FlagSpec>): string {
  const opt = /'(-[^' ]+)/.exec(e.message)?.[1];
  switch (e.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${opt ?? e.message}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const name = opt?.replace(/^-+/, "").split(/[ =]/)[0] ?? "";
      const long = Object.entries(spec).find(([n, s]) => n === name || s.short === name)?.[0] ?? name;
      return spec[long]?.value ? `option --${long} needs a value` : `option --${long} takes no value`;
    }
    default:
      return e.message;
  }
}

/** The one value of a flag (the last one when it was given twice). */
export function flagValue(flags: ParsedArgs["flags"], name: string): string | undefined {
  const v = flags[name];
  return typeof v === "string" ? v : Array.isArray(v) ? v[v.length - 1] : undefined;
}
