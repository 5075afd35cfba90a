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

test("issue 29: no OPENAI_API_KEY at all: codex app-server's 'Missing environment variable' fails the turn auth_required, the model never asked", { skip }, async () => {
  const r = await startCodex([reply.text("never sent")]);
  if (r.spec.command.env.policy === "sanitized") delete r.spec.command.env.set?.OPENAI_API_KEY;
  const sid = await r.open();
  const res = await r.h.call("session/prompt", { sessionId: sid, text: "hello" });
  const d = res.error?.data;
  assert.equal(d?.code, "auth_required", JSON.stringify(res).slice(0, 2000));
  assert.match(d.detail, /OPENAI_API_KEY/);
  assert.equal(r.mock.mainRequests().length, 0, "the model API was never asked");
  console.log(`codex app-server without a key: ${d.detail}`);
  await finish(r);
});

test("issue 29: no OPENAI_API_KEY at all: `codex exec` (cli lane) fails the turn auth_required too", { skip }, async () => {
  const r = await startCodex([reply.text("never sent")]);
  const command = r.run.command();
  if (command.env.policy === "sanitized") {
    command.env.set = { ...command.env.set, A4AA_TEST_MARKER: r.marker };
    delete command.env.set.OPENAI_API_KEY;
  }
  const sid = await r.h.open({ id: "codex", lane: "cli", driver: "codex", command }, { cwd: r.run.cwd });
  const res = await r.h.call("session/prompt", { sessionId: sid, text: "hello" });
  const d = res.error?.data;
  assert.equal(d?.code, "auth_required", JSON.stringify(res).slice(0, 2000));
  assert.match(d.detail, /OPENAI_API_KEY/);
  assert.equal(r.mock.mainRequests().length, 0, "the model API was never asked");
  console.log(`codex exec without a key: ${d.detail}`);
  await finish(r);
});
