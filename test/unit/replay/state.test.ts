// N4: `a4aa replay` of a per-turn CLI remembers the next turn between its processes. That
// state must live in a private folder: a link planted under $TMPDIR by another user (here:
// the same user playing one) is never followed, and no file is overwritten through it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { replayTurn, type RecordedTurn } from "../../../src/replay/per-turn.js";
import { scratchDir } from "../../helpers/tmp.js";

const savedTmp = process.env.TMPDIR;
after(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

const turns: RecordedTurn[] = ["one", "two"].map((prompt) => ({
  prompt,
  entries: [
    { t: 0, dir: "agentStart", p: 1, msg: { args: [prompt] } },
    { t: 1, dir: "agentOut", p: 1, line: `answer ${prompt}` },
    { t: 2, dir: "agentExit", p: 1, msg: { code: 0, signal: null } },
  ],
}));

async function turn(transcript: string, prompt: string): Promise<string> {
  let out = "";
  const io = { stdout: (s: string) => void (out += s), stderr: () => undefined, sleep: async () => undefined };
  assert.equal(await replayTurn(transcript, turns, ["--other", prompt], "", io, { instant: true, strict: false }), 0);
  return out;
}

test("R-REPLAY-1 (N4): replay state is kept in a private 0700 folder; links planted in $TMPDIR are not followed", async () => {
  const tmp = scratchDir("a4aa-n4");
  process.env.TMPDIR = tmp;
  const transcript = path.join(tmp, "t.jsonl");
  const victim = path.join(tmp, "victim");
  writeFileSync(victim, "another user's file\n");
  // The predictable paths an attacker can guess: the old state file, and the new folder's prefix.
  const key = createHash("sha256").update(path.resolve(transcript)).digest("hex").slice(0, 16);
  mkdirSync(path.join(tmp, "a4aa-replay"));
  symlinkSync(victim, path.join(tmp, "a4aa-replay", `${key}-${process.ppid}.json`));
  const planted = path.join(tmp, "planted");
  mkdirSync(planted);
  symlinkSync(victim, path.join(planted, "state.json"));
  symlinkSync(planted, path.join(tmp, `a4aa-replay-${key}-${process.ppid}-XXXXXX`));

  // The same prompt twice: the state makes the second process play the second turn... of
  // prompt "one" (it is matched by prompt, then by order): both are answered, in order.
  assert.equal(await turn(transcript, "one"), "answer one\n");
  assert.equal(await turn(transcript, "two"), "answer two\n");
  assert.equal(readFileSync(victim, "utf8"), "another user's file\n", "the planted link was not followed");

  const dirs = readdirSync(tmp).filter((n) => n.startsWith(`a4aa-replay-${key}-`) && !n.endsWith("XXXXXX"));
  assert.equal(dirs.length, 1, "one private state folder");
  const st = lstatSync(path.join(tmp, dirs[0]));
  assert.ok(st.isDirectory());
  assert.equal(st.mode & 0o777, 0o700);
  for (const f of readdirSync(path.join(tmp, dirs[0]))) assert.equal(lstatSync(path.join(tmp, dirs[0], f)).mode & 0o777, 0o600, f);
});

test("R-REPLAY-1: the state carries the next turn from one replay process to the next", async () => {
  const tmp = scratchDir("a4aa-n4b");
  process.env.TMPDIR = tmp;
  const transcript = path.join(tmp, "t.jsonl");
  // A prompt that matches no recorded turn gets the next one by order.
  assert.equal(await turn(transcript, "zzz"), "answer one\n");
  assert.equal(await turn(transcript, "zzz"), "answer two\n");
});
