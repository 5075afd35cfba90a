// N12: `a4aa replay` streams its transcript. A 300 MiB transcript (a per-turn CLI turn of
// 300 MiB of output lines, and a dialog of 300 MiB of agent messages) is played with the
// replay's peak RSS under REPLAY_RSS_BOUND, the bound the README states.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { CLI } from "../helpers/sidecar.js";
import { peakRss } from "../fixtures/hostile/spec.js";
import { scratchDir } from "../helpers/tmp.js";

/** Runtime, a MiB read buffer, one line and its parsed form, 13 bytes per entry (README). */
const REPLAY_RSS_BOUND = 160 << 20;
const TOTAL = 300 << 20;

/** Writes a transcript of `lines` generated entries after `head` ones, about TOTAL bytes in all. */
function transcript(file: string, spec: unknown, head: unknown[], line: (i: number) => unknown): number {
  const fd = openSync(file, "w");
  let bytes = 0;
  const put = (v: unknown) => (bytes += writeSync(fd, JSON.stringify(v) + "\n"));
  put({ transcript: "a4aa", version: 1, startedAt: new Date().toISOString(), sessionId: "s-1", spec, options: {} });
  for (const h of head) put(h);
  let batch: string[] = [];
  let n = 0;
  for (let i = 0; bytes < TOTAL; i++) {
    batch.push(JSON.stringify(line(i)));
    if (batch.length === 256) {
      bytes += writeSync(fd, batch.join("\n") + "\n");
      batch = [];
    }
    n++;
  }
  if (batch.length) writeSync(fd, batch.join("\n") + "\n");
  closeSync(fd);
  return n;
}

/** Runs `a4aa replay` with `args`, feeding `input`; its stdout bytes and its peak RSS. */
function replay(args: string[], input: string): Promise<{ code: number | null; out: number; peak: number; stderr: string }> {
  const child = spawn(process.execPath, [CLI, "replay", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let out = 0;
  let stderr = "";
  let peak = 0;
  child.stdout.on("data", (c: Buffer) => (out += c.length));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  const timer = setInterval(() => {
    try {
      const now = peakRss(child.pid!);
      if (Number.isFinite(now)) peak = Math.max(peak, now);
    } catch {
      // gone
    }
  }, 20);
  child.stdin.end(input);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearInterval(timer);
      resolve({ code, out, peak, stderr });
    }),
  );
}

const text = "x".repeat(4000);

test("R-HOSTILE-2 (N12): a per-turn turn of 300 MiB replays streaming, under the stated RSS bound", { timeout: 300_000 }, async () => {
  const file = path.join(scratchDir("a4aa-n12"), "t.jsonl");
  const spec = { id: "g", lane: "cli", driver: "gemini", command: { program: "gemini", args: [] } };
  const head = [
    { t: 0, dir: "hostIn", msg: { jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: "s-1", text: "go" } } },
    { t: 1, dir: "agentStart", p: 1, msg: { name: "g", program: "gemini", args: ["-p", "go"], pid: 1, pty: false } },
  ];
  const n = transcript(file, spec, head, (i) => ({ t: 2, dir: "agentOut", p: 1, line: `${i} ${text}` }));
  const r = await replay([file, "--instant", "-p", "go"], "");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.out > n * text.length, `all ${n} lines were played (${r.out} bytes)`);
  assert.ok(r.peak > 0 && r.peak < REPLAY_RSS_BOUND, `peak RSS ${(r.peak / 2 ** 20).toFixed(0)} MiB under ${REPLAY_RSS_BOUND / 2 ** 20} MiB`);
  console.log(`per-turn replay of ${TOTAL / 2 ** 20} MiB: peak RSS ${(r.peak / 2 ** 20).toFixed(0)} MiB`);
});

test("R-HOSTILE-2 (N12): a dialog of 300 MiB of agent messages replays streaming, under the stated RSS bound", { timeout: 300_000 }, async () => {
  const file = path.join(scratchDir("a4aa-n12"), "t.jsonl");
  const spec = { id: "a", lane: "acp", command: { program: "agent", args: [] } };
  const prompt = { jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId: "n-1", prompt: [{ type: "text", text: "go" }] } };
  const head = [
    { t: 0, dir: "agentStart", p: 1, msg: { name: "a", program: "agent", args: [], pid: 1, pty: false } },
    { t: 1, dir: "agentIn", p: 1, msg: prompt },
  ];
  const update = (i: number) => ({
    t: 2,
    dir: "agentOut",
    p: 1,
    msg: { jsonrpc: "2.0", method: "session/update", params: { sessionId: "n-1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${i} ${text}` } } } },
  });
  const n = transcript(file, spec, head, update);
  const r = await replay([file, "--instant"], JSON.stringify(prompt) + "\n");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.out > n * text.length, `all ${n} messages were played (${r.out} bytes)`);
  assert.ok(r.peak > 0 && r.peak < REPLAY_RSS_BOUND, `peak RSS ${(r.peak / 2 ** 20).toFixed(0)} MiB under ${REPLAY_RSS_BOUND / 2 ** 20} MiB`);
  console.log(`dialog replay of ${TOTAL / 2 ** 20} MiB: peak RSS ${(r.peak / 2 ** 20).toFixed(0)} MiB`);
});
