// The TypeScript client (a4aa/client) against a real `a4aa serve` and the bundled example agent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { A4aaClient, type PermissionRequest } from "../../clients/ts/index.js";
import { CLI, ROOT, T, all, exampleSpec, openExample, rejection, shape, withClient } from "./helpers.js";

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
    assert.equal(shape(evs), "thoughtChunk plan toolCall toolCallUpdate toolCall permissionResolved toolCallUpdate messageChunk usage turnEnd");
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

test("issue 14: a permission with no handler fails closed, decided by the policy (not the host), with one warning", { timeout: 60_000 }, async () => {
  const warnings: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    if (String(chunk).includes("no onPermission handler")) warnings.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    await withClient({}, async (c) => {
      const sid = await openExample(c);
      for (let i = 0; i < 2; i++) {
        const out = await c.sessionPrompt({ sessionId: sid, text: "hello" }, T);
        assert.match(out.text ?? "", /I did not run the command/);
      }
      await c.sessionClose({ sessionId: sid }, T);
      const evs = await all(c.events(sid));
      assert.deepEqual(evs.flatMap((e) => (e.type === "permissionResolved" ? [[e.outcome, e.decidedBy]] : [])), [["cancelled", "policy"], ["cancelled", "policy"]]);
    });
  } finally {
    process.stderr.write = write;
  }
  assert.equal(warnings.length, 1, "warned once");
});

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
    const spec = exampleSpec((s) => (s.command.args = ["-e", 'process.stdin.on("data", () => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "early/hello", params: {} }) + "\\n"))']));
    c.sessionOpen({ spec }, { timeoutMs: 3000 }).catch(() => undefined);
    const streams = (c as unknown as { streams: Map<string, unknown> }).streams;
    const deadline = Date.now() + 20_000;
    while (!streams.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const [id] = [...streams.keys()];
    assert.ok(id, "no event arrived for the opening session");
    const ev = await c.events(id).next();
    assert.ok(ev?.type === "raw" && ev.source === "acp");
  }));

