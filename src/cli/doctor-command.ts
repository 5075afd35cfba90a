// `a4aa doctor [--registry FILE]…`: checks each catalog agent here (installed, version
// against the tested one, credential names set, root caveats) and prints one fix per
// problem. Exit 0 when at least one agent is usable, 1 otherwise.
import { runDoctor } from "../catalog/doctor.js";
import { catalogFromFlags, parseFlags } from "./agents-command.js";

export const DOCTOR_HELP = `Usage: a4aa doctor [--registry FILE]...

Checks each agent of the catalog on this machine: is it on PATH, what its --version says
(5 s at most each) against the version a4aa was tested with, which of its credential
variables are set in this shell (names only, never values), and what running as root
changes. Prints one fix per problem. Exits 0 when at least one agent is usable.
`;

export async function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { registry: { type: "string", multiple: true }, help: { type: "boolean" } }, "a4aa doctor --help");
  if (values.help) {
    process.stdout.write(DOCTOR_HELP);
    return 0;
  }
  const catalog = catalogFromFlags(values.registry as string[] | undefined);
  if (!catalog) return 2;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const reports = await runDoctor({ catalog, env: process.env, isRoot });
  const installed = reports.filter((r) => r.entry.installed);
  const missing = reports.filter((r) => !r.entry.installed);
  const width = Math.max(...reports.map((r) => r.entry.id.length));
  const out: string[] = [`a4aa doctor: ${reports.length} agents in the catalog, ${installed.length} installed here`, ""];
  for (const r of installed) {
    const e = r.entry;
    const version = e.version ? ` ${e.version}` : "";
    const tested = e.testedVersion ? ` (tested ${e.testedVersion})` : "";
    out.push(`${r.usable ? "ok " : "ERR"} ${e.id.padEnd(width)}  ${e.path}${version}${tested}`);
    for (const p of r.problems) out.push(`      problem: ${p.what}`, `      fix:     ${p.fix}`);
  }
  if (missing.length) {
    out.push("", "Not installed:");
    for (const r of missing) out.push(`    ${r.entry.id.padEnd(width)}  fix: ${r.problems[0].fix}`);
  }
  const usable = reports.filter((r) => r.usable).length;
  const problems = installed.reduce((n, r) => n + r.problems.length, 0);
  out.push("", `${usable} usable, ${problems} problem${problems === 1 ? "" : "s"} with installed agents, ${missing.length} not installed.`);
  process.stdout.write(out.join("\n") + "\n");
  return usable > 0 ? 0 : 1;
}
