// `npm run schema:gate`: fails when the protocol document changed in a way its version (and
// schema/CHANGELOG.md) does not own up to. See versioning.ts for the rule.
import { parseModel } from "../openrpc/model.js";
import { formatGate } from "./format.js";
import { commitOf, commitsTouching, defaultBase, readWorkingFile, repoRoot, short, showFile, type Base } from "./git.js";
import { judgeGate } from "./versioning.js";
import { DEFAULT_CHANGELOG, DEFAULT_SCHEMA, UsageError, parseArgs, run } from "./cli.js";

const HELP = `Usage: npm run schema:gate [-- --base REF] [--history] [--brief] [--schema PATH] [--changelog PATH]

Compares ${DEFAULT_SCHEMA} in the working tree with a base commit (default: the
merge-base with main on a branch; on main, the last commit of the previous info.version,
so that all of an unreleased version's changes are judged together) and fails (exit 1)
when a change needs a bigger version bump than info.version got, or a new version has no
${DEFAULT_CHANGELOG} entry.
  --base REF    compare with REF instead
  --history     judge every commit that changed the document, each against its parent,
                then the working tree against HEAD
  --brief       one line per change
`;

run("schema:gate", (argv) => {
  const { flags, positionals } = parseArgs(
    argv,
    { base: { value: true }, history: {}, brief: {}, schema: { value: true }, changelog: { value: true }, help: {} },
    "npm run schema:gate -- --help",
  );
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`, "npm run schema:gate -- --help");
  const file = typeof flags.schema === "string" ? flags.schema : DEFAULT_SCHEMA;
  const changelogFile = typeof flags.changelog === "string" ? flags.changelog : DEFAULT_CHANGELOG;
  const verbose = !flags.brief;
  const root = repoRoot();

  const judge = (title: string, oldText: string | null, oldLabel: string, newText: string | null, newLabel: string, changelog: string | null, requireChangelog: boolean) => {
    if (newText === null) {
      process.stdout.write(`${title}\n  FAIL: ${file} is gone (${newLabel}); a protocol document is never deleted\n  failed\n`);
      return false;
    }
    const g = judgeGate({
      old: oldText === null ? null : parseModel(oldText, oldLabel),
      new: parseModel(newText, newLabel),
      changelog,
      requireChangelog,
    });
    process.stdout.write(formatGate(title, g, verbose));
    return g.ok;
  };

  if (flags.history) {
    let ok = true;
    const commits = commitsTouching(file, root);
    for (const { commit, subject } of commits) {
      const parent = commitOf(`${commit}~1`, root);
      const changelog = showFile(commit, changelogFile, root);
      ok =
        judge(
          `commit ${short(commit)} ${subject}`,
          parent ? showFile(parent, file, root) : null,
          `${short(parent ?? "")}:${file}`,
          showFile(commit, file, root),
          `${short(commit)}:${file}`,
          changelog,
          changelog !== null,
        ) && ok;
    }
    const head = commitOf("HEAD", root)!;
    const headText = showFile(head, file, root);
    const work = readWorkingFile(file, root);
    const workLog = readWorkingFile(changelogFile, root);
    if (work !== headText || workLog !== showFile(head, changelogFile, root)) {
      ok = judge("working tree", headText, `HEAD:${file}`, work, `${file} (working tree)`, workLog, true) && ok;
    }
    process.stdout.write(`schema gate: ${commits.length} commit(s) judged: ${ok ? "ok" : "failed"}\n`);
    return ok ? 0 : 1;
  }

  let base: Base;
  if (typeof flags.base === "string") {
    const c = commitOf(flags.base, root);
    if (!c) throw new UsageError(`--base ${JSON.stringify(flags.base)} names no commit`, "npm run schema:gate -- --help");
    base = { commit: c, describe: flags.base };
  } else base = defaultBase(root, file);
  const oldText = base.commit ? showFile(base.commit, file, root) : null;
  const ok = judge(
    `schema gate: ${file} against ${base.describe}${base.commit ? ` = ${short(base.commit)}` : ""}`,
    oldText,
    `${base.commit ? short(base.commit) : "none"}:${file}`,
    readWorkingFile(file, root),
    `${file} (working tree)`,
    readWorkingFile(changelogFile, root),
    true,
  );
  return ok ? 0 : 1;
});
