// The TypeScript client (a4aa/client) against a real `a4aa serve` and the bundled example agent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { A4aaClient, A4aaError, type AcpAgentSpec, type AgentEvent, type ClientOptions, type PermissionRequest } from "../../clients/ts/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.resolve(here, "../../src/cli/main.js");
const EXAMPLE_AGENT = path.resolve(here, "../../src/examples/example-agent.js");
const ROOT = path.resolve(here, "../../..");
const T = { timeoutMs: 60_000 };

function exampleSpec(edit: (s: AcpAgentSpec) => void = () => undefined): AcpAgentSpec {
  const spec: AcpAgentSpec = {
    id: "example",
    lane: "acp",
    command: { program: process.execPath, args: [EXAMPLE_AGENT], env: { policy: "sanitized", inherit: ["PATH", "HOME"] } },
  };
  edit(spec);
  return spec;
}

// Each test's clients are closed (or killed) when it ends.
async function withClient(opts: ClientOptions, body: (c: A4aaClient) => Promise<void>): Promise<void> {
  let stderr = "";
  const c = A4aaClient.start({ command: [process.execPath, CLI, "serve"], onStderr: (t) => (stderr += t), closeTimeoutMs: 20_000, ...opts });
  try {
    await body(c);
  } catch (e) {
    process.stderr.write(`sidecar stderr:\n${stderr.slice(-4000)}\n`);
    throw e;
  } finally {
    await c.close();
  }
}

async function openExample(c: A4aaClient): Promise<string> {
  const open = await c.sessionOpen({ spec: exampleSpec(), cwd: ROOT }, T);
  return open.sessionId;
}

async function all(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

function shape(events: AgentEvent[]): string {
  return events.map((e) => e.type).filter((t, i, a) => i === 0 || a[i - 1] !== t).join(" ");
}

async function rejection(p: Promise<unknown>): Promise<A4aaError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof A4aaError, `not an A4aaError: ${String(e)}`);
    return e;
  }
  assert.fail("the call did not fail");
}

test("ping and rpc.discover", { timeout: 60_000 }, () =>
  withClient({}, async (c) => {
    const res = await c.ping({}, T);
    assert.equal(res.protocol, "a4aa.v1");
    const doc = await c.rpcDiscover({}, T);
    assert.ok(doc.openrpc && doc.methods.length > 0);
  }));

test("a prompt streams its events in order; a handler answers the permission", { timeout: 60_000 }, async () => {
  const asked: PermissionRequest[] = [];
  await withClient({ onPermission: (req) => (asked.push(req), { selected: "allow" }) }, async (c) => {
    const open = await c.sessionOpen({ spec: exampleSpec(), cwd: ROOT }, T);
    assert.equal(open.capabilities.lane, "acp");
    assert.equal(open.agentInfo?.name, "a4aa-example-agent");
    const events = all(c.events(open.sessionId));
    const out = await c.sessionPrompt({ sessionId: open.sessionId, text: "hello" }, T);
    assert.equal(out.stopReason, "endTurn");
    assert.match(out.text ?? "", /it printed hello/);
    await c.sessionClose({ sessionId: open.sessionId }, T);
    const evs = await events;
    assert.equal(shape(evs), "thoughtChunk plan toolCall toolCallUpdate toolCall permissionResolved toolCallUpdate messageChunk usage");
    let text = "";
    for (const ev of evs) {
      switch (ev.type) {
        case "messageChunk":
          text += ev.text;
          break;
        case "permissionResolved":
          assert.deepEqual([ev.outcome, ev.optionId, ev.decidedBy], ["selected", "allow", "host"]);
          break;
        case "toolCallUpdate":
          if (ev.toolCallId === "run-1") assert.equal(ev.status, "completed");
          break;
      }
    }
    assert.equal(text, out.text);
    assert.equal(asked.length, 1);
    assert.equal(asked[0].toolCallId, "run-1");
    assert.deepEqual(asked[0].options.map((o) => o.optionId), ["allow", "always", "reject"]);
  });
});

test("a permission with no handler fails closed", { timeout: 60_000 }, () =>
  withClient({}, async (c) => {
    const sid = await openExample(c);
    const out = await c.sessionPrompt({ sessionId: sid, text: "hello" }, T);
    assert.match(out.text ?? "", /I did not run the command/);
    await c.sessionClose({ sessionId: sid }, T);
    const evs = await all(c.events(sid));
    assert.deepEqual(evs.flatMap((e) => (e.type === "permissionResolved" ? [e.outcome] : [])), ["cancelled"]);
  }));

test("a handler that throws fails closed", { timeout: 60_000 }, () =>
  withClient({ onPermission: () => Promise.reject(new Error("no")) }, async (c) => {
    const sid = await openExample(c);
    const out = await c.sessionPrompt({ sessionId: sid, text: "hello" }, T);
    assert.match(out.text ?? "", /I did not run the command/);
  }));

test("cancel during a turn; a second prompt meanwhile is turn_in_progress", { timeout: 60_000 }, () =>
  withClient({}, async (c) => {
    const sid = await openExample(c);
    const turn = c.sessionPrompt({ sessionId: sid, text: "/slow 100" }, T);
    const first = await c.events(sid).next();
    assert.equal(first?.type, "messageChunk");
    const busy = await rejection(c.sessionPrompt({ sessionId: sid, text: "again" }, T));
    assert.deepEqual([busy.code, busy.stage, busy.retryable], ["turn_in_progress", "prompt", true]);
    await c.sessionCancel({ sessionId: sid }, T);
    assert.equal((await turn).stopReason, "cancelled");
  }));

test("close ends the event stream and is idempotent", { timeout: 60_000 }, () =>
  withClient({}, async (c) => {
    const sid = await openExample(c);
    await c.sessionClose({ sessionId: sid }, T);
    await c.sessionClose({ sessionId: sid }, T);
    assert.equal(await c.events(sid).next(), undefined);
    assert.equal((await rejection(c.sessionPrompt({ sessionId: sid, text: "x" }, T))).code, "unknown_session");
  }));

const errorCases: [string, (c: A4aaClient) => Promise<unknown>, number, string][] = [
  ["invalid_params", (c) => c.call("session/open", { spec: null }, T), -32602, "open"],
  ["unknown_session", (c) => c.sessionPrompt({ sessionId: "no-such-session", text: "x" }, T), -32001, "prompt"],
  ["unsupported_selector", (c) => c.sessionOpen({ spec: exampleSpec(), options: { mode: "no-such-mode" } }, T), -32000, "open"],
  ["env_refused", (c) => c.sessionOpen({ spec: exampleSpec((s) => (s.command.env = { policy: "sanitized", inherit: ["SECRET_TOKEN"] })) }, T), -32000, "spawn"],
  ["spawn_failed", (c) => c.sessionOpen({ spec: exampleSpec((s) => (s.command.program = "/no/such/agent")) }, T), -32000, "spawn"],
  ["method_not_found", (c) => c.call("no/such/method", {}, T), -32601, "transport"],
];
for (const [code, call, rpcCode, stage] of errorCases) {
  test(`error kind ${code}`, { timeout: 60_000 }, () =>
    withClient({}, async (c) => {
      const e = await rejection(call(c));
      assert.deepEqual([e.rpcCode, e.code, e.stage, e.uncertainEffect], [rpcCode, code, stage, false]);
    }));
}

test("peer_closed when the sidecar dies mid-call", { timeout: 60_000 }, () =>
  withClient({}, async (c) => {
    const sid = await openExample(c);
    const turn = c.sessionPrompt({ sessionId: sid, text: "/slow 200" }, T);
    await c.events(sid).next();
    c.proc.kill("SIGKILL");
    const e = await rejection(turn);
    assert.deepEqual([e.code, e.stage, e.uncertainEffect], ["peer_closed", "transport", true]);
    const after = await rejection(c.ping({}, T));
    assert.deepEqual([after.code, after.uncertainEffect], ["peer_closed", false]);
  }));

test("a 10 MiB prompt", { timeout: 120_000 }, () =>
  withClient({}, async (c) => {
    const sid = await openExample(c);
    const text = "/size " + "x".repeat(10 << 20);
    const out = await c.sessionPrompt({ sessionId: sid, text }, T);
    assert.equal(out.text, `I received ${text.length} characters.`);
  }));

test("EOF shutdown: close() ends the sidecar with status 0 and ends every stream", { timeout: 60_000 }, async () => {
  const c = A4aaClient.start({ command: [process.execPath, CLI, "serve"], onStderr: () => undefined, closeTimeoutMs: 20_000 });
  const sid = await openExample(c);
  const started = Date.now();
  assert.deepEqual(await c.close(), { code: 0, signal: null });
  assert.equal(await c.events(sid).next(), undefined);
  assert.equal((await rejection(c.ping({}, T))).code, "peer_closed");
  process.stdout.write(`# EOF shutdown with one open session took ${Date.now() - started} ms\n`);
});

test("events that arrive before session/open answers are buffered", { timeout: 60_000 }, () =>
  withClient({}, async (c) => {
    const spec = exampleSpec((s) => (s.command.args = ["-e", 'process.stdin.on("data", () => process.stdout.write("not json\\n"))']));
    c.sessionOpen({ spec }, { timeoutMs: 3000 }).catch(() => undefined);
    const streams = (c as unknown as { streams: Map<string, unknown> }).streams;
    const deadline = Date.now() + 20_000;
    while (!streams.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const [id] = [...streams.keys()];
    assert.ok(id, "no event arrived for the opening session");
    const ev = await c.events(id).next();
    assert.ok(ev?.type === "raw" && ev.source === "stdout");
  }));

test("a line of almost 64 MiB each way through a4aa serve", { timeout: 300_000 }, () =>
  withClient({}, async (c) => {
    const sid = await openExample(c);
    const word = "z".repeat((64 << 20) - 1024);
    const started = Date.now();
    const out = await c.sessionPrompt({ sessionId: sid, text: "/echo " + word }, { timeoutMs: 240_000 });
    const ms = Date.now() - started;
    assert.ok(out.text === word, "the outcome is not the echo");
    await c.sessionClose({ sessionId: sid }, T);
    const evs = await all(c.events(sid));
    assert.ok(evs.some((e) => e.type === "messageChunk" && e.text === word));
    process.stdout.write(`# a ${word.length + 6}-byte prompt echoed through a4aa serve in ${ms} ms\n`);
  }));
