// §14 hostile input: the bounds of R-HOSTILE-2, fs confinement under a swap race and
// special files (R-HOSTILE-3), stdout EOF of a still-running agent (R-HOSTILE-5). The
// attacker is test/fixtures/hostile/hostile-agent.ts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AcpAgentSpec } from "../../../generated/ts/types.js";
import type { Host } from "../harness/client.js";
import type { Check, CheckContext } from "../harness/context.js";

const HOSTILE_AGENT = fileURLToPath(new URL("../../fixtures/hostile/hostile-agent.js", import.meta.url));
/** TurnOutcome.text's bound and marker, as the schema states them. */
const TEXT_BOUND = 67_108_864;
const TEXT_MARKER = "[a4aa: the turn's text was cut here";

function hostile(ctx: CheckContext): AcpAgentSpec {
  return {
    id: "conformance-hostile",
    lane: "acp",
    command: { program: process.execPath, args: [HOSTILE_AGENT], env: ctx.envPolicy() },
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  } as AcpAgentSpec;
}

async function said(h: Host, sessionId: string, text: string): Promise<any> {
  const out = await h.api.sessionPrompt({ sessionId, text });
  return JSON.parse(out.text ?? "null");
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, rej) => (t = setTimeout(() => rej(new Error(`${what}: no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(t));
}

function vmHwm(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) * 1024;
}

const DEEP = 100_000;
/** A ping whose params are nested DEEP arrays deep. */
const deepPing = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"x":${"[".repeat(DEEP)}${"]".repeat(DEEP)}}}`;

export const hostileChecks: Check[] = [
  {
    id: "R-HOSTILE-1/host-line-deep",
    covers: ["R-HOSTILE-1"],
    title: "a host line nested 10^5 deep (a request and a bare array) is answered with a typed error; the stream goes on",
    async run(ctx) {
      const h = ctx.start();
      const before = h.received.length;
      void h.expectReply(7001, "ping");
      await h.wire.writeLine(deepPing(7001), `<ping nested ${DEEP} deep>`);
      await h.wire.writeLine(`${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`, `<object nested ${DEEP} deep>`);
      const typed = ["parse_error", "invalid_request", "invalid_params"];
      const answers = () => h.received.slice(before).filter((r) => r.msg?.id === 7001 || (r.msg?.id === null && r.msg?.error));
      // The request is answered with its id (or, unreadable, with id null); the object with id null.
      await h.waitFor(() => answers().length >= 2, 15_000, "answers to both deep lines");
      for (const a of answers()) {
        if (a.msg.error) assert.ok(typed.includes(a.msg.error.data?.code), `an untyped error for a deep line: ${JSON.stringify(a.msg.error).slice(0, 300)}`);
      }
      const nullErr = answers().filter((a) => a.msg.id === null);
      assert.ok(nullErr.length >= 1, "the deep non-JSON-RPC object got no error");
      assert.ok((await h.api.ping()).protocol, "ping after the deep lines");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-HOSTILE-1/agent-line-deep",
    covers: ["R-HOSTILE-1"],
    title: "an ACP agent sending a session/update and a bare line nested 10^5 deep: the turn is still answered, later chunks arrive, the sidecar serves on",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      const r = await within(h.prompt(sid, "deep;text:done"), 20_000, "the prompt");
      assert.ok(r.result, `the turn failed: ${JSON.stringify(r.error)}`);
      assert.equal(r.result.stopReason, "endTurn");
      assert.match(h.text(sid), /after deep.*done|after deepdone/s, `the chunks after the deep lines: ${JSON.stringify(h.text(sid).slice(0, 200))}`);
      const again = await h.prompt(sid, "text:still here");
      assert.ok(again.result, "the session serves another turn");
      assert.ok((await h.api.ping()).protocol);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-HOSTILE-4/host-write-error",
    covers: ["R-HOSTILE-4"],
    title: "the host closes its end of the sidecar's stdout and keeps writing requests: the sidecar logs it and shuts down as on EOF (exit 0) within 10 s, and no agent is left",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      void h.prompt(sid, "slow:400");
      await h.waitFor(() => h.events(sid).length > 0, 10_000, "the turn to stream");
      h.wire.note("host destroys its end of stdout");
      const stderrBefore = h.stderr.length;
      h.wire.proc.stdout.destroy();
      const pinger = setInterval(() => void h.wire.writeLine(JSON.stringify({ jsonrpc: "2.0", id: `p${Date.now()}`, method: "ping" })), 50);
      let code: number | null;
      try {
        code = await h.waitExit(10_000, "after its stdout was closed");
      } finally {
        clearInterval(pinger);
      }
      assert.equal(code, 0, "the shutdown after a write error is not the clean one of stdin EOF");
      assert.ok(h.stderr.length > stderrBefore, "the write error was not logged on stderr");
      assert.deepEqual(await ctx.waitNoLeftovers(5000), [], "agents outlived the sidecar");
    },
  },
  {
    id: "R-HOSTILE-4/one-session-fault",
    covers: ["R-HOSTILE-4"],
    title: "one session's agent sends noise, a 10^5-deep line and crashes mid-turn: that turn fails agent_exited; a concurrent session's turn and a later one complete",
    async run(ctx) {
      const h = ctx.start();
      const a = (await h.open(ctx.acp())).sessionId;
      const b = (await h.open(ctx.acp())).sessionId;
      const [ra, rb] = await Promise.all([h.prompt(a, "slow:3;noise;deep;crash"), h.prompt(b, "slow:15;text:B done")]);
      assert.equal(ra.error?.data?.code, "agent_exited", `the faulty session's turn: ${JSON.stringify(ra.error ?? ra.result)}`);
      assert.ok(rb.result, `the other session's turn failed: ${JSON.stringify(rb.error)}`);
      assert.equal(rb.result.stopReason, "endTurn");
      assert.ok(!h.text(b).includes("after deep") && !h.text(b).includes("about to crash"), "the other session got the faulty agent's text");
      const again = await h.prompt(b, "text:later");
      assert.ok(again.result, "the other session serves another turn");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-HOSTILE-2/text-and-terminal-bounds",
    covers: ["R-HOSTILE-2"],
    title: "72 MiB of chunks in one turn: 72 events, TurnOutcome.text cut at the schema's bound with its marker; bad outputByteLimit refused, terminal output under its limit",
    heavy: true,
    timeoutMs: 120_000,
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(hostile(ctx), { cwd: ctx.tmp })).sessionId;
      const out = await h.api.sessionPrompt({ sessionId: sid, text: "chunks:72" });
      const chunks = h.events(sid).filter((e) => e.type === "messageChunk").length;
      assert.equal(chunks, 72, "every chunk is an event");
      const text = out.text ?? "";
      assert.ok(text.length < TEXT_BOUND + 1024, `TurnOutcome.text is ${text.length} characters, over the schema's bound ${TEXT_BOUND}`);
      assert.ok(text.includes(TEXT_MARKER), "the cut text carries the marker");
      for (const bad of ["1e12", '"x"', "-1"]) {
        const r = await said(h, sid, `terminal-limit:${bad}`);
        assert.ok(r.error, `outputByteLimit ${bad} was accepted`);
      }
      const flood = await said(h, sid, `terminal-flood:${16 << 20}:4096`);
      assert.ok(flood.len <= 4096 && flood.truncated === true, `terminal output ${JSON.stringify(flood)}`);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-HOSTILE-2/file-read-bound",
    covers: ["R-HOSTILE-2"],
    title: "fs/read_text_file of a 300 MiB (sparse) file: refused or bounded, line/limit give its part, the sidecar's peak RSS stays under 300 MiB",
    heavy: true,
    async run(ctx) {
      const h = ctx.start();
      const big = path.join(ctx.tmp, "big.log");
      writeFileSync(big, "first\nsecond\n");
      truncateSync(big, 300 << 20);
      const sid = (await h.open(hostile(ctx), { cwd: ctx.tmp })).sessionId;
      const whole = await said(h, sid, `read:${big}`);
      assert.ok(whole.error || whole.len < 64 << 20, `the whole file came back: ${JSON.stringify(whole)}`);
      assert.deepEqual(await said(h, sid, `read-part:${big}:2:1`), { content: "second" });
      const peak = vmHwm(h.wire.pid!);
      assert.ok(peak < 300 << 20, `peak RSS ${peak >> 20} MiB`);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-HOSTILE-3/swap-race",
    covers: ["R-HOSTILE-3"],
    title: "3,000 fs reads and writes while the agent swaps a directory of its cwd with a symlink to outside (renameat2 RENAME_EXCHANGE): nothing outside is read or written",
    heavy: true,
    timeoutMs: 120_000,
    async run(ctx) {
      const h = ctx.start();
      const cwd = path.join(ctx.tmp, "work");
      const outside = path.join(ctx.tmp, "outside");
      mkdirSync(cwd);
      mkdirSync(outside);
      writeFileSync(path.join(outside, "f"), "OUTSIDE");
      const sid = (await h.open(hostile(ctx), { cwd })).sessionId;
      const r = await said(h, sid, `race:3000:${outside}`);
      h.wire.note(`race: ${JSON.stringify(r)}`);
      assert.ok(r.swaps > 100, "the swapper ran");
      assert.equal(r.readsOutside, 0, `${r.readsOutside} reads returned the outside file`);
      assert.deepEqual(readdirSync(outside), ["f"], "files were written outside the cwd");
      assert.equal(readFileSync(path.join(outside, "f"), "utf8"), "OUTSIDE");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-HOSTILE-3/special-files",
    covers: ["R-HOSTILE-3"],
    title: "fs/read_text_file of FIFOs (no writer) and a device are refused at once in four sessions; a fifth session's plain read works; EOF still ends the sidecar",
    async run(ctx) {
      const h = ctx.start();
      execFileSync("mkfifo", [path.join(ctx.tmp, "pipe")]);
      writeFileSync(path.join(ctx.tmp, "plain.txt"), "plain");
      const sids: string[] = [];
      for (let i = 0; i < 5; i++) sids.push((await h.open(hostile(ctx), { cwd: ctx.tmp })).sessionId);
      const fifo = await within(Promise.all(sids.slice(0, 4).map((s) => said(h, s, `read:${path.join(ctx.tmp, "pipe")}`))), 10_000, "FIFO reads");
      for (const r of fifo) assert.ok(r.error, `a FIFO was read: ${JSON.stringify(r)}`);
      assert.deepEqual(await within(said(h, sids[4], `read:${path.join(ctx.tmp, "plain.txt")}`), 10_000, "a plain read"), { len: 5 });
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-HOSTILE-5/acp-stdout-closed",
    covers: ["R-HOSTILE-5"],
    title: "an ACP agent that closes stdout and keeps running: the turn fails agent_exited within 10 s and the agent is stopped",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(hostile(ctx), { cwd: ctx.tmp })).sessionId;
      await within(h.fail("session/prompt", { sessionId: sid, text: "text:before;close-stdout" }, "agent_exited"), 10_000, "the prompt");
      assert.deepEqual(await ctx.waitNoLeftovers(5000), [], "the agent was stopped");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-HOSTILE-5/rpc-stdout-closed",
    covers: ["R-HOSTILE-5"],
    title: "a codex app-server that closes stdout and keeps running: the turn fails agent_exited within 10 s and the agent is stopped",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.rpc())).sessionId;
      await within(h.fail("session/prompt", { sessionId: sid, text: "close-stdout" }, "agent_exited"), 10_000, "the prompt");
      assert.deepEqual(await ctx.waitNoLeftovers(5000), [], "the agent was stopped");
      assert.equal(await h.end(), 0);
    },
  },
];
