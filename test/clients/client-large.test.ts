// The TypeScript client with large messages: a 10 MiB prompt, and a line of almost 64 MiB each way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { T, all, openExample, withClient } from "./helpers.js";

test("a 10 MiB prompt", { timeout: 120_000 }, () =>
  withClient({}, async (c) => {
    const sid = await openExample(c);
    const text = "/size " + "x".repeat(10 << 20);
    const out = await c.sessionPrompt({ sessionId: sid, text }, T);
    assert.equal(out.text, `I received ${text.length} characters.`);
  }));

test("a line of almost 64 MiB each way through a4aa serve", { timeout: 300_000 }, () =>
  withClient({}, async (c) => {
    const sid = await openExample(c);
    const word = "z".repeat((64 << 20) - 1024);
    const started = Date.now();
    const out = await c.sessionPrompt({ sessionId: sid, text: "/echo " + word }, { timeoutMs: 240_000 });
    const ms = Date.now() - started;
    // TurnOutcome.text is bounded at 32 Mi (R-HOSTILE-2); the messageChunk below is whole.
    assert.ok(out.text?.startsWith(word.slice(0, 32 << 20)) && out.text.includes("[a4aa: the turn's text was cut here"), "the outcome is not the echo cut at 32 Mi");
    await c.sessionClose({ sessionId: sid }, T);
    const evs = await all(c.events(sid));
    assert.ok(evs.some((e) => e.type === "messageChunk" && e.text === word));
    process.stdout.write(`# a ${word.length + 6}-byte prompt echoed through a4aa serve in ${ms} ms\n`);
  }));
