// Issue 14 "failing honestly": which credential variables an agent reads, and what an auth
// failure tells the person reading it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentSpec } from "../../../generated/ts/types.js";
import { errors } from "../../../src/errors.js";
import { asAuthFailure, authFailure, credentialHint, credentialVariables, looksLikeAuthFailure } from "../../../src/lanes/credential-hints.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const recorded = JSON.parse(readFileSync(path.join(root, "test/agents/auth-failures.json"), "utf8")) as { failures: { agent: string; lane: string; text: string }[] };

const env = { policy: "sanitized" } as const;
const acp = (program: string, args: string[] = []): AgentSpec => ({ id: "a", lane: "acp", command: { program, args, env } });

test("issue 14: credential variables by CLI driver, by program (path, .js, npx package@version), and for the rpc lane", () => {
  const cases: [AgentSpec, string[]][] = [
    [{ id: "c", lane: "cli", driver: "claudeCode", command: { program: "claude", args: [], env } }, ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"]],
    [acp("/opt/bin/claude-agent-acp"), ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"]],
    [acp("npx", ["--yes", "@agentclientprotocol/claude-agent-acp@0.16.2"]), ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"]],
    [acp("gemini", ["--acp"]), ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL"]],
    [acp("node", ["/x/node_modules/@google/gemini-cli/dist/gemini.js", "--acp"]), ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL"]],
    [{ id: "r", lane: "rpc", dialect: "codexAppServer", command: { program: "codex", args: ["app-server"], env } }, ["OPENAI_API_KEY", "CODEX_HOME"]],
    [acp("codex-acp"), ["OPENAI_API_KEY", "CODEX_HOME"]],
    [{ id: "q", lane: "cli", driver: "qwen", command: { program: "qwen", args: [], env } }, ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"]],
    [acp("my-own-agent"), []],
  ];
  for (const [spec, names] of cases) assert.deepEqual(credentialVariables(spec), names, JSON.stringify(spec.command));
});

test("issue 14: the hint says the environment is only what the spec names, and names the variables (or asks for them)", () => {
  assert.match(credentialHint(acp("gemini")), /environment is only what its spec names.*GEMINI_API_KEY, GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL.*HOME/);
  assert.match(credentialHint(acp("my-own-agent")), /environment is only what its spec names.*name the variables this agent reads/);
  const e = authFailure(acp("claude-agent-acp"), "prompt", "session/prompt: 401");
  assert.deepEqual([e.code, e.stage, e.retryable, e.uncertainEffect], ["auth_required", "prompt", false, false]);
  assert.equal(authFailure(acp("x"), "prompt", "401", true).uncertainEffect, true);
});

test("issue 14: what reads like an authentication failure", () => {
  for (const m of [
    "unexpected status 401 Unauthorized: Incorrect API key provided",
    "Invalid API key · Please run /login",
    "Not logged in",
    "[API Error: UNAUTHENTICATED]",
    "Authentication required",
    "invalid x-api-key",
  ])
    assert.ok(looksLikeAuthFailure(m), m);
  for (const m of ["the model refused to cooperate", "rate limit: 429 Too Many Requests", "port 4010 in use", "context window exceeded"]) assert.ok(!looksLikeAuthFailure(m), m);
});

test("issue 29: every text the real agents were recorded saying without credentials reads as an authentication failure", () => {
  assert.ok(recorded.failures.length >= 10);
  for (const f of recorded.failures) assert.ok(looksLikeAuthFailure(f.text), `${f.agent} (${f.lane}): ${f.text}`);
});

test("issue 29: an agent that ended with such words (agent_failed, agent_exited in a turn, spawn_failed before its handshake) is auth_required; uncertainEffect only when it acted", () => {
  const gemini: AgentSpec = { id: "g", lane: "cli", driver: "gemini", command: { program: "gemini", args: [], env } };
  const exited = errors.agentExited("prompt", "gemini exited with code 41 before ending the turn; stderr tail:\nPlease set an Auth method in your /h/.gemini/settings.json or specify …");
  const e = asAuthFailure(gemini, exited, false);
  assert.deepEqual([e.code, e.stage, e.uncertainEffect], ["auth_required", "prompt", false]);
  assert.match(e.detail!, /Please set an Auth method/);
  assert.equal(asAuthFailure(gemini, exited, true).uncertainEffect, true);
  const early = asAuthFailure(acp("qwen", []), errors.spawnFailed("qwen exited with code 1 during its handshake (no stderr output); it said: No auth type is selected."));
  assert.deepEqual([early.code, early.stage, early.uncertainEffect], ["auth_required", "initialize", false]);
  // Not an authentication failure, or a code that is not the agent's own account: unchanged.
  const other = errors.agentExited("prompt", "gemini exited with code 1: out of memory");
  assert.equal(asAuthFailure(gemini, other, false), other);
  const refused = errors.outputLimit("prompt", 401);
  assert.equal(asAuthFailure(gemini, refused, false), refused);
});
