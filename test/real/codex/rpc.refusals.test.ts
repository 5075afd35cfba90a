// R-USAGE-1 with the real codex (app-server and exec): the model API's refusals for rate,
// quota and load, as the mock answers them in OpenAI's words, fail the turn with the typed
// code, retryable as its name says. Seen with codex 0.x pinned in test/agents: it reports a
// 429 as "exceeded retry limit, last status: 429 Too Many Requests" and drops the API's
// "try again in 4.2s", so retryAfterMs is absent (never guessed).
import assert from "node:assert/strict";
import { test } from "node:test";
import { finish, reply, skip, startCodex } from "../helpers/codex-rpc.js";

const RATE = "Rate limit reached for gpt-5 in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 4.2s.";
const QUOTA = "You exceeded your current quota, please check your plan and billing details.";

for (const lane of ["rpc", "cli"] as const) {
  test(`R-USAGE-1: codex ${lane === "rpc" ? "app-server" : "exec"}: a 429 rate limit is rate_limited (retryable; codex drops the API's retry hint)`, { skip }, async () => {
    const r = await startCodex([{ ...reply.error(429, RATE, "rate_limit_exceeded"), sticky: true }]);
    const sid = lane === "rpc" ? await r.open() : await openCli(r);
    const res = await r.h.call("session/prompt", { sessionId: sid, text: "hello" });
    const d = res.error?.data;
    assert.equal(d?.code, "rate_limited", JSON.stringify(res).slice(0, 2000));
    assert.equal(d.retryable, true);
    assert.match(d.detail, /429 Too Many Requests/);
    assert.equal(d.retryAfterMs, undefined, "codex does not pass the API's hint on: nothing is guessed");
    console.log(`codex ${lane} 429: ${d.detail}`);
    await finish(r);
  });

  test(`R-USAGE-1: codex ${lane === "rpc" ? "app-server" : "exec"}: insufficient_quota is quota_exhausted (not retryable)`, { skip }, async () => {
    const r = await startCodex([{ ...reply.error(429, QUOTA, "insufficient_quota"), sticky: true }]);
    const sid = lane === "rpc" ? await r.open() : await openCli(r);
    const res = await r.h.call("session/prompt", { sessionId: sid, text: "hello" });
    const d = res.error?.data;
    assert.equal(d?.code, "quota_exhausted", JSON.stringify(res).slice(0, 2000));
    assert.equal(d.retryable, false);
    console.log(`codex ${lane} quota: ${d.detail}`);
    await finish(r);
  });
}

async function openCli(r: Awaited<ReturnType<typeof startCodex>>): Promise<string> {
  const command = r.run.command();
  if (command.env.policy === "sanitized") command.env.set = { ...command.env.set, A4AA_TEST_MARKER: r.marker };
  return r.h.open({ id: "codex", lane: "cli", driver: "codex", command }, { cwd: r.run.cwd });
}
