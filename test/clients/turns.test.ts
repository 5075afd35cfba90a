// Turn-aware streams in the TS client: promptStream on two lanes, the TurnEnd marker in events().
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { TurnEnd, type AgentSpec, type StreamItem } from "../../clients/ts/index.js";
import { ROOT, T, rejection, withClient } from "./helpers.js";

const text = (items: StreamItem[]) => items.map((e) => (e.type === "messageChunk" && "text" in e ? e.text : "")).join("");
const echoCli: AgentSpec = {
  id: "echo",
  lane: "cli",
  driver: "generic",
  command: { program: process.execPath, args: [path.join(ROOT, "test/fixtures/cli/echo.mjs")], env: { policy: "sanitized", inherit: ["PATH", "HOME"] } },
};

test("promptStream yields a turn's events, then its TurnEnd, on the ACP lane (catalog example) and a CLI lane", { timeout: 60_000 }, async () => {
  await withClient({}, async (c) => {
    const lanes: [Promise<{ sessionId: string }>, string, string][] = [
      [c.sessionOpen({ agent: { id: "example" }, cwd: ROOT }, T), "/echo hi there", "hi there"],
      [c.sessionOpen({ spec: echoCli, cwd: ROOT }, T), "ping", "echo: ping"],
    ];
    for (const [opening, prompt, want] of lanes) {
      const { sessionId } = await opening;
      for (let turn = 0; turn < 2; turn++) {
        const items: StreamItem[] = [];
        for await (const item of c.promptStream({ sessionId, text: prompt }, T)) items.push(item);
        const last = items.at(-1);
        assert.ok(last instanceof TurnEnd && last.outcome, "the stream ends with its outcome");
        assert.ok(!items.slice(0, -1).some((e) => e instanceof TurnEnd));
        assert.ok(text(items).includes(want), text(items));
        assert.ok(last.outcome.text?.includes(want));
      }
      await c.sessionClose({ sessionId }, T);
    }
  });
});

test("events() puts a TurnEnd after each turn's events; a failed prompt's stream throws its error", { timeout: 60_000 }, async () => {
  await withClient({}, async (c) => {
    const { sessionId } = await c.sessionOpen({ agent: { id: "example" }, cwd: ROOT }, T);
    const read = (async () => {
      const turns: string[] = [""];
      const ends: TurnEnd[] = [];
      for await (const ev of c.events(sessionId)) {
        if (ev instanceof TurnEnd) {
          ends.push(ev);
          turns.push("");
        } else turns[turns.length - 1] += text([ev]);
      }
      return { turns, ends };
    })();
    const outs = [];
    for (let i = 0; i < 3; i++) outs.push(await c.sessionPrompt({ sessionId, text: `/echo turn-${i}` }, T));
    await c.sessionClose({ sessionId }, T);
    const { turns, ends } = await read;
    assert.deepEqual(turns, ["turn-0", "turn-1", "turn-2", ""]);
    assert.deepEqual(
      ends.map((e) => e.outcome),
      outs,
    );
    const err = await rejection((async () => {
      for await (const _ of c.promptStream({ sessionId: "no-such-session", text: "x" }, T)) void _;
    })());
    assert.equal(err.code, "unknown_session");
  });
});
