// Item 7 of issue 30: the recorder taps the lines the lanes frame; it neither splits a
// process's streams a second time (unbounded) nor patches its stdin.write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { readFileSync } from "node:fs";
import { Transcript } from "../../../src/journal/recorder.js";
import { Redactor } from "../../../src/journal/redact.js";
import { createLogger } from "../../../src/log.js";
import type { PipeProcess } from "../../../src/supervise/pipe-process.js";
import { scratchDir } from "../../helpers/tmp.js";

test("R-REC-1: the recorder adds no reader to stdout and leaves stdin.write alone; it records the lines the lane hands it, redacted", async () => {
  const dir = scratchDir("a4aa-recorder");
  const r = new Redactor();
  r.add([["K", "sk-0123456789"]]);
  const t = new Transcript(dir, { sessionId: "s-1", spec: {}, options: {} }, r, createLogger("error"));
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const write = stdin.write;
  let exit!: (e: { code: number; signal: null }) => void;
  const proc = { pid: 1, stdin, stdout, onStderrLine: () => () => undefined, exited: new Promise((res) => (exit = res)) } as unknown as PipeProcess;
  const tap = t.started(proc, { name: "x", program: "x", args: [] });
  assert.equal(stdin.write, write, "stdin.write is not patched");
  assert.equal(stdout.listenerCount("data"), 0, "stdout is not read by the recorder");
  assert.equal(stdout.listenerCount("newListener"), 0);
  assert.ok(tap, "a line tap for the lane");
  tap("stdin", '{"jsonrpc":"2.0","id":1,"method":"initialize"}');
  tap("stdout", '{"jsonrpc":"2.0","id":1,"result":{"k":"sk-0123456789"}}');
  tap("stdoutText", "text sk-01234");
  tap("stdoutText", "56789 more");
  exit({ code: 0, signal: null });
  await new Promise((res) => setImmediate(res));
  t.close();
  const lines = readFileSync(t.file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const dirs = lines.slice(1).map((e) => e.dir);
  assert.deepEqual([...new Set(dirs)], ["agentStart", "agentIn", "agentOut", "agentText", "agentExit"]);
  assert.equal(dirs.filter((d) => d === "agentExit").length, 1);
  assert.deepEqual(lines[3].msg.result, { k: "<redacted>" });
  const text = lines.filter((e) => e.dir === "agentText").map((e) => e.line).join("");
  assert.equal(text, "text <redacted> more", "a secret split across two pieces is redacted; the tail is written at exit");
  assert.ok(!readFileSync(t.file, "utf8").includes("sk-0123"));
});
