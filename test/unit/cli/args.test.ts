// The command-line parser every `a4aa` command uses (node:util parseArgs, strict).
import assert from "node:assert/strict";
import { test } from "node:test";
import { UsageError, flagValue, parseArgs } from "../../../src/cli/args.js";

const spec = { prompt: { value: true }, deny: {}, env: { value: true, multiple: true } };

test("flags, values, repeated values and positionals", () => {
  const p = parseArgs(["--prompt", "hi", "--deny", "one", "--env", "A=1", "--env=B=2", "two", "--", "--three"], spec, "x --help");
  assert.deepEqual(p.flags, { prompt: "hi", deny: true, env: ["A=1", "B=2"] });
  assert.deepEqual(p.positionals, ["one", "two", "--three"]);
  assert.equal(flagValue(p.flags, "env"), "B=2");
  assert.equal(parseArgs(["-h"], spec, "x --help").flags.help, true, "--help / -h needs no declaration");
});

test("an unknown flag, a missing value or a value for a switch is a UsageError naming it", () => {
  const cases: [string[], RegExp][] = [
    [["--bogus"], /^unknown option --bogus$/],
    [["-z"], /^unknown option -z$/],
    [["--prompt"], /^option --prompt needs a value$/],
    [["--deny=yes"], /^option --deny takes no value$/],
  ];
  for (const [argv, re] of cases) {
    assert.throws(
      () => parseArgs(argv, spec, "a4aa demo --help"),
      (e: unknown) => e instanceof UsageError && re.test(e.message) && e.helpCommand === "a4aa demo --help",
      argv.join(" "),
    );
  }
});
