// Issue 14 "failing honestly": the real `codex app-server` through a4aa serve against a mock
// that answers 401. The turn fails auth_required, says that the agent's environment is only
// what its spec names and which variables Codex reads, and (no tool ran) uncertainEffect false.
import { test } from "node:test";
import assert from "node:assert/strict";
import { finish, reply, skip, startCodex } from "../helpers/codex-rpc.js";

test("issue 14: a 401 from the model API fails the turn auth_required, naming OPENAI_API_KEY and CODEX_HOME; uncertainEffect false before any tool", { skip }, async () => {
  const r = await startCodex([{ ...reply.error(401, "Incorrect API key provided: sk-mock***", "invalid_request_error"), sticky: true }]);
  const sid = await r.open();
  const res = await r.h.call("session/prompt", { sessionId: sid, text: "hello" });
  const d = res.error?.data;
  assert.equal(d?.code, "auth_required", JSON.stringify(res).slice(0, 2000));
  assert.equal(d.stage, "prompt");
  assert.equal(d.uncertainEffect, false, "no tool ran: the agent provably did nothing");
  assert.match(d.detail, /401|Unauthorized|Incorrect API key/i, "Codex's own message");
  assert.match(d.detail, /environment is only what its spec names/);
  assert.match(d.detail, /OPENAI_API_KEY, CODEX_HOME/);
  console.log(`codex 401: ${d.detail}`);
  await finish(r);
});
