#!/usr/bin/env node
// A small fake CLI agent for the cli lane: `fake-cli.js generic … <prompt>` answers in plain
// text; `fake-cli.js codex exec --json … -- <prompt>` answers in the `codex exec --json`
// stream format. The prompt's first word picks the scenario:
//   env     the environment as JSON text          fail    a stderr line, exit 2
//   slow    a child in the group, ticks forever   stderr  two stderr lines, then the answer
//   error   (codex) turn.failed, exit 1           other   "echo: <prompt>"
//   stubborn ignores SIGTERM, a child in the group that does too, ticks forever
// With A4AA_CONFORMANCE_LOG set, each start appends its argv to that file.
import { appendFileSync } from "node:fs";
import { spawn } from "node:child_process";

const [format, ...rest] = process.argv.slice(2);
const prompt = rest[rest.length - 1] ?? "";
if (process.env.A4AA_CONFORMANCE_LOG) appendFileSync(process.env.A4AA_CONFORMANCE_LOG, JSON.stringify({ format, argv: rest }) + "\n");
const word = prompt.trim().split(/\s+/)[0];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const out = (s: string) => new Promise((r) => (process.stdout.write(s) ? r(undefined) : process.stdout.once("drain", r)));
const ev = (o: unknown) => out(JSON.stringify(o) + "\n");

async function answer(text: string): Promise<void> {
  if (format === "codex") {
    await ev({ type: "thread.started", thread_id: "conf-thread-1" });
    await ev({ type: "turn.started" });
    await ev({ type: "item.completed", item: { id: "item_0", type: "agent_message", text } });
    await ev({ type: "turn.completed", usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } });
  } else {
    await out(text.slice(0, 3));
    await sleep(20);
    await out(text.slice(3) + "\n");
  }
}

async function main(): Promise<void> {
  switch (word) {
    case "env":
      return answer(JSON.stringify(process.env));
    case "fail":
      process.stderr.write("fake-cli: cannot answer that\n");
      await sleep(20);
      process.exit(2);
      break;
    case "slow":
      spawn("sleep", ["30"], { stdio: "ignore" });
      if (format === "codex") {
        await ev({ type: "thread.started", thread_id: "conf-thread-1" });
        await ev({ type: "turn.started" });
      }
      for (let i = 1; ; i++) {
        if (format !== "codex") await out(`${i} `);
        await sleep(50);
      }
    case "stubborn":
      process.on("SIGTERM", () => undefined);
      spawn("sh", ["-c", "trap '' TERM; while true; do sleep 1; done"], { stdio: "ignore" });
      for (let i = 1; ; i++) {
        await out(`${i} `);
        await sleep(50);
      }
    case "stderr":
      process.stderr.write("fake-cli: stderr one\nfake-cli: stderr two\n");
      await sleep(30);
      return answer(`echo: ${prompt}`);
    case "error":
      if (format === "codex") {
        await ev({ type: "thread.started", thread_id: "conf-thread-1" });
        await ev({ type: "turn.started" });
        await ev({ type: "turn.failed", error: { message: "mock failure: the model is down" } });
        process.exit(1);
      }
      return answer(`echo: ${prompt}`);
    default:
      return answer(`echo: ${prompt}`);
  }
}
void main();
