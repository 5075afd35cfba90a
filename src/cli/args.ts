// A small, strict argument parser: unknown flags are errors (exit 2), never ignored.
export interface FlagSpec {
  /** Takes a value (`--flag V` or `--flag=V`). */
  value?: boolean;
}

export interface ParsedArgs {
  flags: Record<string, string | true>;
  positionals: string[];
}

export class UsageError extends Error {
  constructor(message: string, readonly helpCommand: string) {
    super(message);
    this.name = "UsageError";
  }
}

export function parseArgs(argv: string[], spec: Record<string, FlagSpec>, helpCommand: string): ParsedArgs {
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith("-") || a === "-") {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = (eq === -1 ? a : a.slice(0, eq)).replace(/^--?/, "");
    const s = spec[name];
    if (!s) throw new UsageError(`unknown option ${eq === -1 ? a : a.slice(0, eq)}`, helpCommand);
    if (s.value) {
      const v = eq !== -1 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new UsageError(`option --${name} needs a value`, helpCommand);
      flags[name] = v;
    } else {
      if (eq !== -1) throw new UsageError(`option --${name} takes no value`, helpCommand);
      flags[name] = true;
    }
  }
  return { flags, positionals };
}
