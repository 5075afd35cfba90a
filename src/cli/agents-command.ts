// `a4aa agents [--json] [--probe] [--registry FILE]…`: the agents catalog, and what of it is
// installed on this PATH (a table, or agents/list's result as JSON).
import { parseArgs, type ParseArgsConfig } from "node:util";
import { AgentCatalog } from "../catalog/catalog.js";
import { RegistryFileError } from "../catalog/acp-registry.js";
import { UsageError } from "./args.js";

export const AGENTS_HELP = `Usage: a4aa agents [--json] [--probe] [--registry FILE]...

Lists the agents catalog (the built-in agents, plus those of ACP registry files) and what of
it is installed on this PATH. Nothing is run unless --probe is given.

Options:
  --json             print agents/list's result ({agents: [...]}) as JSON
  --probe            also run each installed program's --version (5 s at most each)
  --registry FILE    add the agents of an ACP registry document; repeatable
  --help             print this help
`;

/** node:util parseArgs, its errors turned into the CLI's usage errors (exit 2). */
export function parseFlags(argv: string[], options: NonNullable<ParseArgsConfig["options"]>, help: string): { values: Record<string, unknown> } {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }) as { values: Record<string, unknown> };
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/\.$/, ""), help);
  }
}

export function catalogFromFlags(registry: string[] | undefined): AgentCatalog | null {
  try {
    return new AgentCatalog({ hostEnv: process.env, registryFiles: registry ?? [], warn: (m) => process.stderr.write(`a4aa: warning: ${m}\n`) });
  } catch (e) {
    if (!(e instanceof RegistryFileError)) throw e;
    process.stderr.write(`a4aa: ${e.message}\n`);
    return null;
  }
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd()).join("\n") + "\n";
}

export async function agentsCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    argv,
    { json: { type: "boolean" }, probe: { type: "boolean" }, registry: { type: "string", multiple: true }, help: { type: "boolean" } },
    "a4aa agents --help",
  );
  if (values.help) {
    process.stdout.write(AGENTS_HELP);
    return 0;
  }
  const catalog = catalogFromFlags(values.registry as string[] | undefined);
  if (!catalog) return 2;
  const result = await catalog.list(values.probe === true);
  if (values.json) {
    process.stdout.write(JSON.stringify(result, null, 2) + "\n");
    return 0;
  }
  const rows = [["ID", "NAME", "LANES", "INSTALLED", "VERSION"]];
  for (const a of result.agents) {
    // `*`: the lane can run many sessions on one agent process (share, §13).
    const lanes = a.lanes.map((l) => `${l.lane}${l.share ? "*" : ""}`).join(",");
    const version = values.probe
      ? `${a.version ?? (a.installed ? "?" : "-")}${a.testedVersion ? ` (tested ${a.testedVersion})` : ""}`
      : a.testedVersion
        ? `tested ${a.testedVersion}`
        : "-";
    rows.push([a.id, a.name, lanes, a.path ?? "-", version]);
  }
  process.stdout.write(table(rows));
  const n = result.agents.filter((a) => a.installed).length;
  if (result.agents.some((a) => a.lanes.some((l) => l.share))) {
    process.stdout.write("\n* the lane can hold many sessions on one agent process: open with agent.share (or prewarm with agents/prewarm)");
  }
  process.stdout.write(`\n${n} of ${result.agents.length} agents installed here.${values.probe ? "" : " --probe reads their versions; a4aa doctor checks them."}\n`);
  return 0;
}
