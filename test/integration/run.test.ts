// `a4aa run` in plain pipes, as scripts and CI run it (spec §9 `a4aa run`): one turn, its exit
// status, permissions that fail closed without a terminal, --json, Ctrl-C (SIGINT), errors.
import assert from "node:assert/strict";
import { closeSync, openSync, readFileSync, readdirSync, statSync } from "node:fs";
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { test } from "node:test";
import { execa } from "execa";
import { CLI, exampleAgentSpec, fakeAgentSpec, killMarked, newMarker, waitNoProcesses } from "../helpers/sidecar.js";
import { scratchDir } from "../helpers/tmp.js";

function run(args: string[], opts: { input?: string; marker?: string; env?: Record<string, string> } = {}) {
  const marker = opts.marker ?? newMarker();
  return execa(process.execPath, [CLI, "run", ...args], {
    reject: false,
    timeout: 60_000,
    cwd: scratchDir("a4aa-run"),
    input: opts.input ?? "",
    env: { A4AA_TEST_MARKER: marker, NO_COLOR: "", FORCE_COLOR: "", ...opts.env },
  });
}

const spec = (marker: string, args?: string[]) => JSON.stringify(exampleAgentSpec(marker, args));

test("one turn with a prompt: the reply, tool lines, the plan, a usage line, exit 0; no colours in a pipe", async () => {
  const marker = newMarker();
  const r = await run(["--spec", spec(marker), "--permission", "bypass", "look", "around"], { marker });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /^a4aa example agent 1\.0\.0 · acp lane · session \S+ · mode default$/m);
  assert.match(r.stdout, /^thinking: The user wrote 11 characters/m);
  assert.match(r.stdout, /^plan\n {2}\[~\] Read the README\n {2}\[ \] Run a command\n {2}\[ \] Answer$/m);
  assert.match(r.stdout, /^✓ done Read README\.md \(read\) — there is no README\.md here$/m);
  assert.match(r.stdout, /^permission "allow" by the --permission preset: Run `echo hello`$/m);
  assert.match(r.stdout, /^✓ done Run `echo hello` \(execute\) — hello$/m);
  assert.match(r.stdout, /^Done\. The shell works \(it printed hello\)\. You asked: "look around"/m);
  assert.match(r.stdout, /^── done · 80\d in \/ \d+ out · context 1\.2k\/200k · \$0\.0004 · \d+\.\ds$/m);
  assert.doesNotMatch(r.stdout, /\x1b\[/, "no escape sequences into a pipe");
  assert.equal(r.stderr, "");
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("without a terminal a permission request fails closed, and the command says so once", async () => {
  const marker = newMarker();
  const r = await run(["--spec", spec(marker), "check the shell"], { marker });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /^✗ failed Run `echo hello` \(execute\) — not run: permission was not granted$/m);
  assert.match(r.stdout, /I did not run the command/);
  const said = r.stderr.match(/there is no terminal to ask you/g) ?? [];
  assert.equal(said.length, 1, r.stderr);
  assert.match(r.stderr, /Pass --permission acceptEdits, readOnly or bypass/);
});

test("the prompt piped on stdin; the default agent is the bundled example agent", async () => {
  const marker = newMarker();
  const r = await run(["--env", `A4AA_TEST_MARKER=${marker}`], { marker, input: "/echo from a pipe\n" });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /^a4aa example agent 1\.0\.0/m);
  assert.match(r.stdout, /^from a pipe\n── done/m);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("--json prints the a4aa.v1 events as NDJSON, the outcome last", async () => {
  const marker = newMarker();
  const r = await run(["--json", "--spec", spec(marker), "--permission", "readOnly", "hello"], { marker });
  assert.equal(r.exitCode, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  const sid = lines[0].sessionId;
  assert.equal(lines[0].open.capabilities.lane, "acp");
  assert.deepEqual(lines.at(-1), { sessionId: sid, outcome: lines.at(-1).outcome });
  assert.equal(lines.at(-1).outcome.stopReason, "endTurn");
  const events = lines.slice(1, -1);
  assert.ok(events.every((l) => l.sessionId === sid && typeof l.event.type === "string"));
  const types = new Set(events.map((l) => l.event.type));
  for (const t of ["thoughtChunk", "plan", "toolCall", "toolCallUpdate", "permissionResolved", "messageChunk", "usage"]) assert.ok(types.has(t), t);
  assert.equal(events.find((l) => l.event.type === "permissionResolved").event.decidedBy, "policy");
});

test("Ctrl-C (SIGINT) cancels the running turn: exit 130, every agent process gone", async () => {
  const marker = newMarker();
  const child = execa(process.execPath, [CLI, "run", "--spec", spec(marker), "/slow 200"], {
    reject: false,
    timeout: 60_000,
    cwd: scratchDir("a4aa-run"),
    env: { A4AA_TEST_MARKER: marker },
  });
  try {
    let out = "";
    await new Promise<void>((resolve) => {
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("chunk 3 ")) resolve();
      });
    });
    child.kill("SIGINT");
    const r = await child;
    assert.equal(r.exitCode, 130, r.stderr);
    assert.match(r.stdout, /^── cancelled · /m);
    assert.doesNotMatch(r.stdout, /chunk 200/);
    assert.deepEqual(await waitNoProcesses(marker), []);
  } finally {
    killMarked(marker);
  }
});

test("an agent that cannot start: exit 1, the error in words and its fix, on stderr too; --json ends with the error", async () => {
  const bad = JSON.stringify({ id: "missing", lane: "acp", command: { program: "/nonexistent/agent-program", args: [], env: { policy: "sanitized" } } });
  const r = await run(["--spec", bad, "hello"]);
  assert.equal(r.exitCode, 1);
  assert.match(r.stdout, /✗ opening missing failed: .*spawn_failed/);
  assert.match(r.stdout, /fix: the agent's program could not be started/);
  assert.match(r.stderr, /^a4aa run: .*\/nonexistent\/agent-program/m);
  const j = await run(["--json", "--spec", bad, "hello"]);
  assert.equal(j.exitCode, 1);
  const last = JSON.parse(j.stdout.trimEnd().split("\n").at(-1)!);
  assert.equal(last.error.code, "spawn_failed");
  assert.match(last.error.hint, /could not be started/);
});

test("usage errors exit 2 with a clear message; --help exits 0", async () => {
  for (const [args, re] of [
    [["--bogus"], /unknown option --bogus/],
    [["--permission", "maybe", "x"], /--permission must be one of ask, acceptEdits, readOnly, bypass/],
    [["--lane", "acp", "x"], /--lane goes with --agent/],
    [["--agent", "claude", "--spec", "{}", "x"], /give --agent or --spec, not both/],
    [["--spec", "{nope", "x"], /--spec is not valid JSON/],
    [["--model"], /option --model needs a value/],
    [[], /no prompt: give one as arguments or pipe it on stdin/],
  ] as [string[], RegExp][]) {
    const r = await run(args);
    assert.equal(r.exitCode, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.match(r.stderr, /Run 'a4aa run --help' for usage\./);
  }
  const help = await run(["--help"]);
  assert.equal(help.exitCode, 0);
  assert.match(help.stdout, /^Usage: a4aa run /);
});

test("--resume continues the agent's own session: its history first, then the new turn", async () => {
  const marker = newMarker();
  const first = await run(["--json", "--spec", spec(marker), "/echo first words"], { marker });
  assert.equal(first.exitCode, 0, first.stderr);
  const native = JSON.parse(first.stdout.split("\n")[0]).open.nativeSessionId as string;
  const again = await run(["--spec", spec(marker), "--resume", native, "/echo second words"], { marker });
  assert.equal(again.exitCode, 0, again.stderr);
  assert.match(again.stdout, /^a4aa example agent .*\nthe conversation so far:\n› \/echo first words\nfirst words\nsecond words\n── done/m);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("--agent goes through the sidecar's catalog: an id it does not know fails with exit 1 and a fix", async () => {
  const r = await run(["--agent", "no-such-agent", "hello"]);
  assert.equal(r.exitCode, 1);
  assert.match(r.stdout, /✗ opening no-such-agent failed: /);
  assert.match(r.stdout, /fix: /);
  assert.match(r.stderr, /^a4aa run: /m);
});

test("an agent that crashes mid-turn: exit 1, the error and its stderr tail in words, the fix, the message on stderr", async () => {
  const marker = newMarker();
  const r = await run(["--spec", JSON.stringify(fakeAgentSpec(marker)), "crash"], { marker });
  assert.equal(r.exitCode, 1, r.stdout);
  assert.match(r.stdout, /✗ the turn failed: .*agent_exited/);
  assert.match(r.stdout, /fix: the agent's process ended/);
  assert.match(r.stderr, /^a4aa run: .*agent_exited/m);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("--mode, --model and --effort reach the agent as the session's options", async () => {
  const marker = newMarker();
  const r = await run(["--spec", spec(marker), "--mode", "plan", "--model", "example-large", "--effort", "high", "do it"], { marker });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /In plan mode I ran nothing\. You asked: "do it" \(model example-large, effort high\)\./);
});

test("an unknown --agent id fails at once with the ids that look like it (did you mean)", async () => {
  const t0 = Date.now();
  const r = await run(["--agent", "claude", "hi"]);
  assert.equal(r.exitCode, 1, r.stderr);
  assert.match(`${r.stdout}\n${r.stderr}`, /there is no agent "claude" in the catalog; did you mean .*--agent claude-code/);
  assert.match(`${r.stdout}\n${r.stderr}`, /a4aa agents/);
  assert.ok(Date.now() - t0 < 30_000);
});

test("issue 29: an error is printed once when stdout and stderr reach the same place (2>&1, one file); twice only where they part (the person may read either)", async () => {
  const file = path.join(scratchDir("a4aa-run-once"), "out.txt");
  const fd = openSync(file, "w");
  try {
    const child = spawn(process.execPath, [CLI, "run", "--agent", "claude", "hi"], { stdio: ["ignore", fd, fd] });
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 1);
  } finally {
    closeSync(fd);
  }
  const both = readFileSync(file, "utf8");
  assert.equal(both.match(/there is no agent "claude"/g)?.length, 1, both);
  const apart = await run(["--agent", "claude", "hi"]);
  assert.match(apart.stderr, /there is no agent "claude"/, "stderr alone still says it");
});

test("R-BUDGET-1: --budget sets the session's budget; the usage line shows what is spent; a bad one is a usage error", async () => {
  const marker = newMarker();
  const r = await run(["--spec", spec(marker), "--permission", "bypass", "--budget", "maxTokens=100000,maxCostUsd=1", "look"], { marker });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /· budget 8\d\d\/100k tokens, \$0\.0004\/\$1$/m);
  const slow = await run(["--spec", spec(marker, ["--delay-ms", "400"]), "--permission", "bypass", "--budget", "maxTurnMs=300", "look"], { marker });
  assert.equal(slow.exitCode, 1);
  assert.match(`${slow.stdout}\n${slow.stderr}`, /Budget exceeded.*maxTurnMs is 300/);
  const bad = await run(["--budget", "maxTurns=3", "hi"]);
  assert.equal(bad.exitCode, 2);
  assert.match(bad.stderr, /"maxTurns" is not a budget; use maxTurnMs, maxTokens, maxCostUsd/);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("--record DIR: the session's transcript is written there (mode 0600), as serve --record writes it", async () => {
  const marker = newMarker();
  const dir = path.join(scratchDir("a4aa-run-record"), "rec");
  const r = await run(["--spec", spec(marker), "--permission", "bypass", "--record", dir, "look"], { marker });
  assert.equal(r.exitCode, 0, r.stderr);
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  assert.equal(files.length, 1, `transcripts in ${dir}: ${files.join(", ")}`);
  const file = path.join(dir, files[0]!);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(lines.length > 5);
  assert.match(JSON.stringify(lines), /session\/prompt/, "both sides of the sidecar, the prompt included");
  assert.deepEqual(await waitNoProcesses(marker), []);
});
