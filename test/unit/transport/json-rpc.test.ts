import { test } from "node:test";
import assert from "node:assert/strict";
import { JsonRpcPeer, RpcResponseError } from "../../../src/transport/json-rpc.js";

function pair(opts: { requireVersion?: boolean; writeVersion?: boolean } = {}) {
  const out: string[] = [];
  const notes: [string, unknown][] = [];
  const peer = new JsonRpcPeer({
    sendLine: (l) => out.push(l),
    onRequest: async (m, p) => {
      if (m === "fail") throw new Error("nope");
      if (m === "slow") await new Promise((r) => setTimeout(r, 30));
      return { echo: p ?? null, m };
    },
    onNotification: (m, p) => notes.push([m, p]),
    toRpcError: (e) => ({ code: -32000, message: (e as Error).message }),
    invalidRequest: (reason) => ({ code: -32600, message: reason }),
    requireVersion: opts.requireVersion ?? true,
    writeVersion: opts.writeVersion ?? true,
    allowBatch: true,
  });
  return { peer, out, notes };
}
const tick = () => new Promise((r) => setTimeout(r, 50));
/** A peer with just these handlers (no batches). */
function peerWith(onRequest: (m: string) => unknown, onNotification: (m: string) => void, sendLine: (l: string) => void = () => undefined) {
  return new JsonRpcPeer({
    sendLine,
    onRequest,
    onNotification,
    toRpcError: (e) => ({ code: -32000, message: (e as Error).message }),
    invalidRequest: (reason) => ({ code: -32600, message: reason }),
    requireVersion: true,
    writeVersion: true,
    allowBatch: false,
  });
}

test("a request is answered with its id echoed, and a slow one does not block the next (R-FRAME-6)", async () => {
  const { peer, out } = pair();
  peer.handle({ jsonrpc: "2.0", id: "a", method: "slow" });
  peer.handle({ jsonrpc: "2.0", id: { k: [1] }, method: "fast" });
  await tick();
  assert.deepEqual(out.map((l) => JSON.parse(l).id), [{ k: [1] }, "a"]);
});

test("handlers start in the order messages arrive: a notification never overtakes the request before it", async () => {
  const seen: string[] = [];
  const peer = peerWith(
    async (m) => {
      seen.push(`request ${m}`);
      await new Promise((r) => setTimeout(r, 5));
      return {};
    },
    (m) => seen.push(`notification ${m}`),
  );
  // As an agent reads them from one chunk: a prompt, then its cancel.
  peer.handle({ jsonrpc: "2.0", id: 1, method: "session/prompt" });
  peer.handle({ jsonrpc: "2.0", method: "session/cancel" });
  assert.deepEqual(seen, ["request session/prompt", "notification session/cancel"]);
  await tick();
});

test("a handler that throws before its first await is answered with an error, and the next message is handled", async () => {
  const out: string[] = [];
  const notes: string[] = [];
  const peer = peerWith(
    () => {
      throw new Error("sync failure");
    },
    (m) => notes.push(m),
    (l) => out.push(l),
  );
  peer.handle({ jsonrpc: "2.0", id: 7, method: "x" });
  peer.handle({ jsonrpc: "2.0", method: "n" });
  await tick();
  assert.deepEqual(JSON.parse(out[0]), { jsonrpc: "2.0", id: 7, error: { code: -32000, message: "sync failure" } });
  assert.deepEqual(notes, ["n"]);
});

test("id null is a request, a missing id a notification (R-FRAME-4)", async () => {
  const { peer, out, notes } = pair();
  peer.handle({ jsonrpc: "2.0", id: null, method: "x" });
  peer.handle({ jsonrpc: "2.0", method: "n", params: { a: 1 } });
  await tick();
  assert.equal(out.length, 1);
  assert.equal(JSON.parse(out[0]).id, null);
  assert.deepEqual(notes, [["n", { a: 1 }]]);
});

test("handler errors become error responses", async () => {
  const { peer, out } = pair();
  peer.handle({ jsonrpc: "2.0", id: 1, method: "fail" });
  await tick();
  assert.deepEqual(JSON.parse(out[0]).error, { code: -32000, message: "nope" });
});

test("outgoing requests resolve and reject by id; close fails the rest", async () => {
  const { peer, out } = pair();
  const a = peer.request("m1", { x: 1 });
  const b = peer.request("m2");
  const c = peer.request("m3");
  const [ra, rb] = out.map((l) => JSON.parse(l));
  peer.handle({ jsonrpc: "2.0", id: rb.id, error: { code: 5, message: "bad" } });
  peer.handle({ jsonrpc: "2.0", id: ra.id, result: 7 });
  assert.equal(await a, 7);
  await assert.rejects(b, (e) => e instanceof RpcResponseError && e.code === 5);
  peer.close(new Error("gone"));
  await assert.rejects(c, /gone/);
  await assert.rejects(peer.request("m4"), /gone/);
});

test("timeouts and aborts drop the pending request; a late answer is ignored", async () => {
  const { peer } = pair();
  await assert.rejects(peer.request("t", {}, { timeoutMs: 10, onTimeout: () => new Error("late") }), /late/);
  const ac = new AbortController();
  const p = peer.request("a", {}, { signal: ac.signal });
  ac.abort(new Error("stop"));
  await assert.rejects(p, /stop/);
  assert.equal(peer.pendingCount, 0);
  peer.handle({ jsonrpc: "2.0", id: 1, result: 1 });
});

test("Codex-style peers: no jsonrpc member either way", async () => {
  const { peer, out } = pair({ requireVersion: false, writeVersion: false });
  peer.handle({ id: 3, method: "x" });
  void peer.request("y");
  await tick();
  for (const l of out) assert.equal("jsonrpc" in JSON.parse(l), false);
});

test("batches: responses in one array, none for notifications, [] is invalid (R-FRAME-5)", async () => {
  const { peer, out } = pair();
  peer.handle([{ jsonrpc: "2.0", id: 1, method: "a" }, { jsonrpc: "2.0", method: "n" }, { jsonrpc: "2.0", id: 2, method: "b" }]);
  peer.handle([{ jsonrpc: "2.0", method: "n" }]);
  peer.handle([]);
  await tick();
  const msgs = out.map((l) => JSON.parse(l));
  assert.equal(msgs.length, 2);
  assert.deepEqual(msgs[0].error.code, -32600);
  assert.deepEqual(msgs[1].map((m: { id: number }) => m.id).sort(), [1, 2]);
});

test("non-JSON-RPC values get -32600 with the id when one can be read (R-FRAME-3)", async () => {
  const { peer, out } = pair();
  peer.handle(42);
  peer.handle({ jsonrpc: "2.0", id: 9 });
  peer.handle({ jsonrpc: "1.0", id: 10, method: "x" });
  peer.handle({ jsonrpc: "2.0", id: 11, method: 5 });
  peer.handle({ jsonrpc: "2.0", id: 12, method: "x", params: "str" });
  await tick();
  assert.deepEqual(out.map((l) => [JSON.parse(l).id, JSON.parse(l).error.code]), [[null, -32600], [9, -32600], [10, -32600], [11, -32600], [12, -32600]]);
});

test("a request's envelope members go beside params (codex's `trace`) and never replace id, method or params", async () => {
  const { peer, out } = pair();
  void peer.request("turn/start", { a: 1 }, { envelope: { trace: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }, id: 99, method: "x", params: "y" } });
  const sent = JSON.parse(out[0]!);
  assert.deepEqual(sent.trace, { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" });
  assert.equal(sent.method, "turn/start");
  assert.notEqual(sent.id, 99);
  assert.deepEqual(sent.params, { a: 1 });
  peer.handle({ jsonrpc: "2.0", id: sent.id, result: {} });
});
