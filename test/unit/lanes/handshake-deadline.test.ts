// The handshake deadline every lane honours, and the one error its expiry is reported with.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentSpec } from "../../../generated/ts/types.js";
import { A4aaError } from "../../../src/errors.js";
import { DEFAULT_HANDSHAKE_TIMEOUT_MS, handshakeDeadlineMs, handshakeTimeoutError } from "../../../src/lanes/handshake-deadline.js";

const spec = (extra: Record<string, unknown> = {}) => ({ id: "x", lane: "acp", command: { program: "/usr/bin/agent", args: [] }, ...extra }) as unknown as AgentSpec;

test("the deadline: the spec's handshakeTimeoutMs, else serve --handshake-timeout, else 60 s", () => {
  assert.equal(handshakeDeadlineMs({ spec: spec({ handshakeTimeoutMs: 700 }), handshakeTimeoutMs: 300 }), 700);
  assert.equal(handshakeDeadlineMs({ spec: spec(), handshakeTimeoutMs: 300 }), 300);
  assert.equal(handshakeDeadlineMs({ spec: spec() }), DEFAULT_HANDSHAKE_TIMEOUT_MS);
  assert.equal(DEFAULT_HANDSHAKE_TIMEOUT_MS, 60_000);
});

test("the error: initialize_failed at stage initialize, retryable, uncertain effect; the detail names agent, deadline, request, fix, stdout and stderr tail", () => {
  const e = handshakeTimeoutError({
    name: "the agent",
    program: "/opt/bin/gemini",
    ms: 300,
    awaiting: "initialize",
    modeHint: "ACP, e.g. `gemini --acp`",
    stopped: true,
    noise: "\nfirst stdout lines that are not JSON-RPC (1 of 1):\n  Welcome",
    stderrTail: "line one\nline two\n\n",
  });
  assert.ok(e instanceof A4aaError);
  assert.equal(e.code, "initialize_failed");
  assert.equal(e.stage, "initialize");
  assert.equal(e.retryable, true);
  assert.equal(e.uncertainEffect, true);
  assert.equal(
    e.detail,
    "the agent (gemini) did not complete the handshake within 300 ms (no answer to initialize) and was stopped. " +
      "Check that the command starts the agent in the mode its lane speaks (ACP, e.g. `gemini --acp`); " +
      "a slow agent needs a larger handshakeTimeoutMs or --handshake-timeout." +
      "\nfirst stdout lines that are not JSON-RPC (1 of 1):\n  Welcome" +
      "\nstderr tail:\nline one\nline two",
  );
});

test("the error on a shared process says the process goes on; no stderr and no request known are said so", () => {
  const e = handshakeTimeoutError({ name: "the shared agent", program: "node", ms: 500, awaiting: null, modeHint: "acp", stopped: false, stderrTail: "  \n" });
  assert.match(e.detail!, /^the shared agent \(node\) did not complete the handshake within 500 ms; the shared process goes on\. /);
  assert.match(e.detail!, /\n\(no stderr output\)$/);
});
