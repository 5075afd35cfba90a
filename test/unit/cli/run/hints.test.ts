// Issue 29 item 1: a credential error in `a4aa run`'s own words — the variable to export or
// the --env flag to give — never the protocol's (command.env.set, session/open env).
import assert from "node:assert/strict";
import { test } from "node:test";
import { A4aaError } from "../../../../clients/ts/index.js";
import { describeError } from "../../../../src/cli/run/hints.js";
import { authFailure } from "../../../../src/lanes/credential-hints.js";
import type { AgentSpec } from "../../../../generated/ts/types.js";

const spec: AgentSpec = { id: "g", lane: "acp", command: { program: "gemini", args: ["--acp"], env: { policy: "sanitized" } } };
// As the client receives it: the sidecar's error data.
const received = (): A4aaError => {
  const e = authFailure(spec, "initialize", "session/new: Gemini API key is missing or not configured. (-32000)");
  return A4aaError.fromWire({ code: e.rpcCode, message: "Authentication required", data: e.toData() });
};

test("a catalog agent: export its declared key, or --env NAME=VALUE; the host's hint is gone", () => {
  const d = describeError(received(), [{ name: "GEMINI_API_KEY", required: true, description: "" }]);
  assert.equal(d.code, "auth_required");
  assert.match(d.hint!, /export GEMINI_API_KEY=… .*--env GEMINI_API_KEY=VALUE/);
  assert.doesNotMatch(`${d.message} ${d.hint}`, /command\.env|session\/open/);
  assert.match(d.message, /Gemini API key is missing/, "the agent's own words stay");
});

test("an agent given by --spec: the variables it reads, to give with --env", () => {
  const d = describeError(received());
  assert.match(d.hint!, /--env GEMINI_API_KEY \(the value from this shell\) or --env GEMINI_API_KEY=VALUE \(this agent reads GEMINI_API_KEY, GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL\)/);
  assert.doesNotMatch(`${d.message} ${d.hint}`, /command\.env|session\/open/);
});
