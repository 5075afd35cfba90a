// Hostile input from an agent (a4aa.v1 §14, issue 20): a real `a4aa serve` driving the
// hostile fake agent. The floods of hundreds of MiB are in test/hostile/ (npm run test:hostile).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLI as BIN, TestSidecar, sidecarSetup, fakeAgentSpec, waitNoProcesses } from "../helpers/sidecar.js";
import { scratchDir } from "../helpers/tmp.js";
import { hostileSpec, peakRss } from "../fixtures/hostile/spec.js";
import { fakeSpec } from "../fixtures/rpc/host.js";
import type { AgentSpec } from "../../generated/ts/types.js";

const setup = sidecarSetup();
async function finish(s: TestSidecar, marker: string) {
  assert.equal(await s.end(), 0, "the sidecar still exits on stdin EOF");
  assert.deepEqual(await waitNoProcesses(marker), [], "no process of the test is left");
}
function dirs() {
  const top = scratchDir("a4aa-hostile");
  const cwd = path.join(top, "work");
  const outside = path.join(top, "outside");
  mkdirSync(cwd);
  mkdirSync(outside);
  writeFileSync(path.join(outside, "f"), "OUTSIDE");
  return { top, cwd, outside };
}
const said = (r: { text: string }) => JSON.parse(r.text);

test("R-HOSTILE-3: 3,000 reads and writes while the agent swaps a directory with a symlink outside: nothing outside is read or written", async () => {
  const { s, marker } = setup();
  const { cwd, outside } = dirs();
  const sid = await s.open(hostileSpec(marker), { cwd });
  const r = said(await s.ok("session/prompt", { sessionId: sid, text: `race:3000:${outside}` }));
  assert.deepEqual(r.errors, []);
  assert.ok(r.swaps > 1000, `the swapper ran (${r.swaps} swaps)`);
  assert.ok(r.readsRefused > 0 && r.readsInside > 0, `the race was on both sides: ${JSON.stringify(r)}`);
  assert.equal(r.readsOutside, 0, JSON.stringify(r));
  assert.deepEqual(readdirSync(outside), ["f"], "no file and no temp file was written outside");
  assert.equal(readFileSync(path.join(outside, "f"), "utf8"), "OUTSIDE");
  const inside = readdirSync(path.join(cwd, readdirSync(cwd).includes("d") && readdirSync(path.join(cwd, "d")).includes("f") ? "d" : "l"));
  assert.ok(inside.every((n) => !n.includes("a4aa")), `no temp file left inside: ${inside}`);
  await finish(s, marker);
});

test("R-HOSTILE-3: FIFOs are refused at once; other sessions' file work goes on; the sidecar still exits on EOF", async () => {
  const { s, marker } = setup();
  const { cwd } = dirs();
  execFileSync("mkfifo", [path.join(cwd, "pipe")]);
  writeFileSync(path.join(cwd, "plain.txt"), "plain");
  const sids = await Promise.all(Array.from({ length: 5 }, () => s.open(hostileSpec(marker), { cwd })));
  const fifo = await Promise.all(sids.slice(0, 4).map((sid) => s.ok("session/prompt", { sessionId: sid, text: `read:${path.join(cwd, "pipe")}` })));
  for (const r of fifo) assert.match(said(r).error, /is a FIFO/);
  const plain = said(await s.ok("session/prompt", { sessionId: sids[4], text: `read:${path.join(cwd, "plain.txt")}` }));
  assert.deepEqual(plain, { len: 5 });
  const dev = said(await s.ok("session/prompt", { sessionId: sids[4], text: "read:/dev/zero" }));
  assert.match(dev.error, /device|outside/);
  await finish(s, marker);
});

test("R-HOSTILE-2: a 300 MiB file is refused with the stated cap, a part of it can be read, and the sidecar's peak stays low", async () => {
  const { s, marker } = setup();
  const { cwd } = dirs();
  const big = path.join(cwd, "big.log");
  writeFileSync(big, "first\nsecond\n");
  truncateSync(big, 300 << 20);
  const sid = await s.open(hostileSpec(marker), { cwd });
  const whole = said(await s.ok("session/prompt", { sessionId: sid, text: `read:${big}` }));
  assert.match(whole.error, /at most 16777216 bytes \(16 MiB\): ask for part of it with line and limit/);
  const part = said(await s.ok("session/prompt", { sessionId: sid, text: `read-part:${big}:2:1` }));
  assert.deepEqual(part, { content: "second" });
  const nul = said(await s.ok("session/prompt", { sessionId: sid, text: `read-part:${big}:3:1` }));
  assert.match(nul.error, /at most 16777216 bytes/);
  const rss = peakRss(s.proc.pid!);
  assert.ok(rss < 200 << 20, `peak RSS ${rss >> 20} MiB`);
  await finish(s, marker);
});

test("R-HOSTILE-2: a bad outputByteLimit is invalid params naming the maximum; terminal output stays under its limit", async () => {
  const { s, marker } = setup();
  const { cwd } = dirs();
  const sid = await s.open(hostileSpec(marker), { cwd });
  for (const bad of ["1e12", '"x"', "-1", "1.5"]) {
    const r = said(await s.ok("session/prompt", { sessionId: sid, text: `terminal-limit:${bad}` }));
    assert.match(r.error ?? "", /invalid outputByteLimit .*from 0 to 67108864/, bad);
  }
  assert.ok(said(await s.ok("session/prompt", { sessionId: sid, text: "terminal-limit:4096" })).terminalId);
  const flood = said(await s.ok("session/prompt", { sessionId: sid, text: `terminal-flood:${64 << 20}:${1 << 20}` }));
  assert.deepEqual(flood, { len: 1 << 20, truncated: true });
  await finish(s, marker);
});

test("R-HOSTILE-2: terminal/create past --max-terminals or past the sidecar's 256 MiB output budget is a JSON-RPC error the agent sees; the turn goes on; a close gives the budget back", async () => {
  const byCount = { code: -32600, limit: "maxTerminals" };
  const byBudget = { code: -32600, limit: "terminalOutputBudget" };
  {
    const { s, marker } = setup(["--max-terminals", "3"]);
    const { cwd } = dirs();
    const capped = await s.open(hostileSpec(marker), { cwd });
    assert.deepEqual(said(await s.ok("session/prompt", { sessionId: capped, text: "terminals:5:1024:10" })), { created: 3, refused: [byCount, byCount] });
    // Unreleased terminals still count in the next turn; another session has its own three.
    assert.deepEqual(said(await s.ok("session/prompt", { sessionId: capped, text: "terminals:1:1024:10" })), { created: 0, refused: [byCount] });
    const other = await s.open(hostileSpec(marker), { cwd });
    assert.deepEqual(said(await s.ok("session/prompt", { sessionId: other, text: "terminals:4:1024:10" })), { created: 3, refused: [byCount] });
    await finish(s, marker);
  }
  const { s, marker } = setup();
  const { cwd } = dirs();
  const spec = hostileSpec(marker);
  const small = await s.open(spec, { cwd });
  assert.deepEqual(said(await s.ok("session/prompt", { sessionId: small, text: "terminals:3:1024:10" })), { created: 3, refused: [] });
  // Another session: 64 MiB terminals fit three times next to the first session's 3 KiB.
  const big = await s.open(spec, { cwd });
  const r = said(await s.ok("session/prompt", { sessionId: big, text: `terminals:6:${64 << 20}:10` }));
  assert.deepEqual(r, { created: 3, refused: [byBudget, byBudget, byBudget] });
  await s.ok("session/close", { sessionId: small });
  assert.deepEqual(said(await s.ok("session/prompt", { sessionId: big, text: `terminals:2:${64 << 20}:10` })), { created: 1, refused: [byBudget] });
  await s.ok("session/close", { sessionId: big });
  const again = await s.open(spec, { cwd });
  assert.deepEqual(said(await s.ok("session/prompt", { sessionId: again, text: `terminals:4:${64 << 20}:10` })), { created: 4, refused: [] });
  await finish(s, marker);
});

test("R-HOSTILE-2: --terminal-output-budget sets the sidecar-wide budget; bad values of both flags are usage errors", async () => {
  const { s, marker } = setup(["--terminal-output-budget", String(128 << 20)]);
  const { cwd } = dirs();
  const sid = await s.open(hostileSpec(marker), { cwd });
  assert.deepEqual(said(await s.ok("session/prompt", { sessionId: sid, text: `terminals:3:${64 << 20}:10` })), { created: 2, refused: [{ code: -32600, limit: "terminalOutputBudget" }] });
  await finish(s, marker);
  for (const args of [["--max-terminals", "0"], ["--max-terminals", "2000"], ["--terminal-output-budget", "12"]]) {
    const r = spawnSync(process.execPath, [BIN, "serve", ...args], { input: "", encoding: "utf8", timeout: 20_000 });
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`${args[0]} must be`), args.join(" "));
  }
});

test("R-HOSTILE-5: an acp agent that closes stdout but keeps running ends its turn with agent_exited and is stopped", async () => {
  const { s, marker } = setup();
  const { cwd } = dirs();
  const sid = await s.open(hostileSpec(marker), { cwd });
  const other = await s.open(fakeAgentSpec(marker));
  const t0 = Date.now();
  const r = await s.call("session/prompt", { sessionId: sid, text: "text:before;close-stdout" });
  assert.equal(r.error?.data?.code, "agent_exited", JSON.stringify(r));
  assert.match(r.error!.data.detail ?? r.error!.message, /closed its stdout/);
  assert.ok(Date.now() - t0 < 5000);
  assert.equal((await s.ok("session/prompt", { sessionId: other, text: "text:still here" })).text, "still here");
  await s.ok("session/close", { sessionId: sid });
  await finish(s, marker);
});

test("R-HOSTILE-5: a codex app-server that closes stdout but keeps running ends its turn with agent_exited and is stopped", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeSpec(marker));
  const r = await s.call("session/prompt", { sessionId: sid, text: "text:before;close-stdout" });
  assert.equal(r.error?.data?.code, "agent_exited", JSON.stringify(r));
  assert.match(r.error!.data.detail ?? r.error!.message, /closed its stdout/);
  assert.deepEqual(await waitNoProcesses(marker), [], "the agent was stopped");
  await s.ok("session/close", { sessionId: sid });
  await finish(s, marker);
});

test("R-ENV-1: a set name __proto__ reaches the agent like any other name", async () => {
  const { s, marker } = setup();
  const spec = fakeAgentSpec(marker) as AgentSpec & { command: { env: { set: Record<string, string> } } };
  spec.command.env.set = JSON.parse(`{"__proto__": "p", "A4AA_TEST_MARKER": "${marker}"}`);
  const sid = await s.open(spec);
  const env = JSON.parse((await s.ok("session/prompt", { sessionId: sid, text: "env" })).text);
  assert.equal(Object.getOwnPropertyDescriptor(env, "__proto__")?.value, "p");
  await finish(s, marker);
});

test("R-ENV-1, D10 (README, Environment boundary): a same-user agent reads neither the sidecar's own environment nor a literal the host sent in a spec", async () => {
  const { s, marker } = setup();
  const literal = `lit-${marker}`;
  const spec = hostileSpec(marker) as AgentSpec & { command: { env: { set: Record<string, string> } } };
  spec.command.env.set = { ...spec.command.env.set, API_KEY: literal };
  const sid = await s.open(spec);
  const r = said(await s.ok("session/prompt", { sessionId: sid, text: `environ:${s.proc.pid}` }));
  // D10: the sidecar cleared its environment block at start; only its test marker stays.
  assert.ok(!r.environ.some((v: string) => v.includes("do-not-leak")), `the side door is closed: ${JSON.stringify(r.environ).slice(0, 300)}`);
  assert.ok(!r.environ.some((v: string) => v.includes(literal)), "a literal sent over the protocol is not in the sidecar's environ");
  await finish(s, marker);
});
