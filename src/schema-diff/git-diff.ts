// `npm run schema:diff -- <git-ref> [--json]`: judges how the working tree's protocol
// document changed since <git-ref>.
import { diffTexts } from "./diff.js";
import { formatDiff } from "./format.js";
import { commitOf, readWorkingFile, repoRoot, showFile } from "./git.js";
import { DEFAULT_SCHEMA, UsageError, breaksHosts, parseArgs, run } from "./cli.js";

const HELP = `Usage: npm run schema:diff -- <git-ref> [--json] [--exit-code] [--schema PATH]

Compares ${DEFAULT_SCHEMA} in the working tree with its version at <git-ref> and
prints every change with its rule and verdict (breaking for hosts, breaking for
sidecars, warning, compatible, docs).
  --json        print the result as JSON
  --exit-code   exit 1 when a change breaks hosts (as git diff --exit-code)
  --schema P    another document path, relative to the repository root
`;

run("schema:diff", (argv) => {
  const { flags, positionals } = parseArgs(argv, { json: {}, "exit-code": {}, schema: { value: true }, help: {} }, "npm run schema:diff -- --help");
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError("expected one <git-ref>", "npm run schema:diff -- --help");
  const ref = positionals[0];
  const file = typeof flags.schema === "string" ? flags.schema : DEFAULT_SCHEMA;
  const root = repoRoot();
  const commit = commitOf(ref, root);
  if (!commit) throw new UsageError(`${JSON.stringify(ref)} names no commit`, "npm run schema:diff -- --help");
  const oldText = showFile(commit, file, root);
  if (oldText === null) throw new Error(`${file} did not exist at ${ref}`);
  const newText = readWorkingFile(file, root);
  if (newText === null) throw new Error(`${file} does not exist in the working tree`);
  const d = diffTexts(oldText, newText, `${ref}:${file}`, `${file} (working tree)`);
  process.stdout.write(flags.json ? `${JSON.stringify(d, null, 2)}\n` : formatDiff(d));
  return flags["exit-code"] && breaksHosts(d) ? 1 : 0;
});
