// The resume command `a4aa run` prints reopens the same agent in the same place (issue 29 item 6).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRunArgs, type RunOptions } from "../../../../src/cli/run/options.js";
import { similarIds } from "../../../../src/cli/run/session.js";
import { resumeFlags } from "../../../../src/cli/run/resume-hint.js";

test("the resume hint keeps --agent, --lane, --cwd (when not the shell's) and --env names, never their values", () => {
  process.env.A4AA_RESUME_TEST_KEY = "secret-value";
  const o = parseRunArgs(["--agent", "codex", "--lane", "rpc", "--cwd", "/tmp", "--env", "A4AA_RESUME_TEST_KEY", "--env", "OTHER=x y"]) as RunOptions;
  const flags = resumeFlags(o, "/somewhere/else");
  assert.equal(flags, " --agent codex --lane rpc --cwd /tmp --env A4AA_RESUME_TEST_KEY --env OTHER");
  assert.doesNotMatch(flags, /secret-value|x y/);
  assert.equal(resumeFlags(o, "/tmp"), " --agent codex --lane rpc --env A4AA_RESUME_TEST_KEY --env OTHER");
});

test("similar ids: containment first, then a few edits", () => {
  const agents = ["claude-code", "claude-agent-acp", "codex", "gemini", "qwen"].map((id) => ({ id }) as never);
  assert.deepEqual(similarIds("claude", agents), ["claude-agent-acp", "claude-code"]);
  assert.deepEqual(similarIds("gemni", agents), ["gemini"]);
  assert.deepEqual(similarIds("zzzzzzz", agents), []);
});
