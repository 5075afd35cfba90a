// NdjsonPeer over in-memory streams: both roles, bad lines, hostile nesting, id matching,
// write errors, and the hook that sees every line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough, Writable } from "node:stream";
import { NdjsonPeer, type BadLine, type NdjsonPeerOptions } from "../../../src/transport/ndjson-peer.js";
import { RpcResponseError } from "../../../src/transport/json-rpc.js";

const tick = () => new Promise((r) => setImmediate(r));

function pair(extra: Partial<NdjsonPeerOptions> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: string[] = [];
  let buf = "";
  output.setEncoding("utf8");
  output.on("data", (d: string) => {
    buf += d;
    const parts = buf.split("\n");
    buf = parts.pop()!;
    written.push(...parts);
  });
  const bad: BadLine[] = [];
  const seen: string[] = [];
  const calls: string[] = [];
  const peer = new NdjsonPeer({
    input,
    output,
    maxLineBytes: 1 << 20,
    checkUtf8: true,
    requireVersion: true,
    writeVersion: true,
    allowBatch: true,
    onRequest: (method, params) => {
      calls.push(method);
      return { method, params };
    },
    onNotification: (method) => calls.push(`notify:${method}`),
    toRpcError: (e) => ({ code: -32603, message: String(e) }),
    invalidRequest: (reason) => ({ code: -32600, message: reason }),
    onBadLine: (b) => bad.push(b),
    onLine: (dir, line) => seen.push(`${dir} ${line}`),
    ...extra,
  });
  const send = (line: string) => input.write(line + "\n");
  return { peer, input, output, written, bad, seen, calls, send };
}

test("R-HOSTILE-1: a line nested 10^5 deep is a bad line (with its shallow id), and the next line is served", async () => {
  const p = pair();
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  p.send(`{"jsonrpc":"2.0","id":7,"method":"m","params":${deep}}`);
  p.send(`[{"jsonrpc":"2.0","id":8,"method":"m"},${deep}]`);
  p.send(`{"jsonrpc":"2.0","id":${deep},"method":"m"}`);
  p.send('{"jsonrpc":"2.0","id":9,"method":"ok"}');
  await tick();
  assert.deepEqual(
    p.bad.map((b) => [b.kind, b.rawId]),
    [
      ["too_deep", "7"],
      ["too_deep", undefined],
      ["too_deep", undefined],
    ],
  );
  assert.deepEqual(p.calls, ["ok"], "no deep message reached a handler");
  assert.deepEqual(JSON.parse(p.written[0]), { jsonrpc: "2.0", id: 9, result: { method: "ok" } });
});

test("both roles on one object; ids match by JSON value: a response with id \"1\" does not settle request 1", async () => {
  const p = pair();
  const answer = p.peer.request("host/thing", { a: 1 }, { timeoutMs: 2000 });
  await tick();
  assert.deepEqual(JSON.parse(p.written[0]), { jsonrpc: "2.0", id: 1, method: "host/thing", params: { a: 1 } });
  p.send('{"jsonrpc":"2.0","id":"1","result":"wrong"}');
  await tick();
  assert.equal(p.peer.pendingCount, 1, "the string id settled nothing");
  p.send('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"no","data":{"x":1}}}');
  const e = await answer.then(
    () => assert.fail("resolved"),
    (err: unknown) => err,
  );
  assert.ok(e instanceof RpcResponseError);
  assert.deepEqual(e.wire, { code: -32000, message: "no", data: { x: 1 } });
});

test("the line hook sees every line both ways, in order; bad UTF-8, bad JSON and oversize lines are typed", async () => {
  const p = pair();
  p.send('{"jsonrpc":"2.0","method":"note"}');
  p.input.write(Buffer.from([0xff, 0xfe, 10]));
  p.send("{nope");
  p.send("x".repeat((1 << 20) + 1));
  p.send('{"jsonrpc":"2.0","id":"a","method":"m"}');
  await tick();
  assert.deepEqual(
    p.bad.map((b) => b.kind),
    ["invalid_utf8", "parse_error", "frame_too_large"],
  );
  assert.deepEqual(p.calls, ["notify:note", "m"]);
  assert.deepEqual(p.seen, [
    'in {"jsonrpc":"2.0","method":"note"}',
    "in {nope",
    'in {"jsonrpc":"2.0","id":"a","method":"m"}',
    'out {"jsonrpc":"2.0","id":"a","result":{"method":"m"}}',
  ]);
});

test("objectsOnly: a line that is not an object is a bad line, not answered", async () => {
  const p = pair({ objectsOnly: true, allowBatch: false, requireVersion: false });
  p.send("[1,2,3]");
  p.send("5");
  await tick();
  assert.deepEqual(
    p.bad.map((b) => [b.kind, b.text]),
    [
      ["not_object", "[1,2,3]"],
      ["not_object", "5"],
    ],
  );
  assert.deepEqual(p.written, []);
});

test("R-HOSTILE-4: a write error is reported once; nothing more is written; the end of input still comes", async () => {
  const errors: Error[] = [];
  let ended = false;
  const failing = new Writable({
    write(_c, _e, cb) {
      cb(Object.assign(new Error("write ENOBUFS"), { code: "ENOBUFS" }));
    },
  });
  const input = new PassThrough();
  const peer = new NdjsonPeer({
    input,
    output: failing,
    maxLineBytes: 1024,
    checkUtf8: true,
    requireVersion: true,
    writeVersion: true,
    allowBatch: false,
    onRequest: () => "r",
    onNotification: () => undefined,
    toRpcError: () => ({ code: -32603, message: "x" }),
    invalidRequest: (r) => ({ code: -32600, message: r }),
    onBadLine: () => undefined,
    onWriteError: (e) => errors.push(e),
    onEnd: () => (ended = true),
  });
  peer.notify("a");
  peer.notify("b");
  await tick();
  await tick();
  peer.notify("c");
  input.end('{"jsonrpc":"2.0","id":1,"method":"m"}\n');
  await tick();
  await tick();
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /ENOBUFS/);
  assert.equal(ended, true);
});
