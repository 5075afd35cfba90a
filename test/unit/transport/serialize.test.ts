// The one serialiser: raw ids written verbatim, big strings piecewise, nothing a string
// can hold confused with either.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RawJson } from "../../../src/transport/raw-id.js";
import { BIG_STRING_CHARS, jsonPieces, serialize } from "../../../src/transport/serialize.js";
import { JsonRpcPeer } from "../../../src/transport/json-rpc.js";

test("a response with an unsafe-integer id and a string equal to the old placeholder keeps both (R-FRAME-4)", () => {
  const result = { s: "\u0000raw0\u0000", t: "\\u0000raw0\\u0000" };
  const msg = { jsonrpc: "2.0", id: new RawJson("12345678901234567890"), result };
  const want = `{"jsonrpc":"2.0","id":12345678901234567890,"result":${JSON.stringify(result)}}`;
  assert.equal(serialize(msg), want);
  assert.equal([...jsonPieces(msg, true)].join(""), want);
  // Big strings around it too.
  const big = { jsonrpc: "2.0", id: new RawJson("1.50"), result: { a: "\u0000raw0\u0000", b: "z".repeat(BIG_STRING_CHARS + 1) } };
  assert.equal([...jsonPieces(big, true)].join(""), JSON.stringify({ ...big, id: 0 }).replace('"id":0', '"id":1.50'));
});

test("through the peer: the unsafe id is echoed verbatim and the placeholder-like string survives (R-FRAME-4)", async () => {
  const out: string[] = [];
  const peer = new JsonRpcPeer({
    sendLine: (l) => out.push(l),
    onRequest: () => ({ echo: "\u0000raw0\u0000" }),
    onNotification: () => undefined,
    toRpcError: () => ({ code: -32603, message: "x" }),
    invalidRequest: (r) => ({ code: -32600, message: r }),
    requireVersion: true,
    writeVersion: true,
    allowBatch: true,
  });
  const line = '{"jsonrpc":"2.0","id":12345678901234567890,"method":"m"}';
  peer.handle(JSON.parse(line), line);
  const batch = '[{"jsonrpc":"2.0","id":98765432109876543210,"method":"m"},{"jsonrpc":"2.0","id":2,"method":"m"}]';
  peer.handle(JSON.parse(batch), batch);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(out, [
    '{"jsonrpc":"2.0","id":12345678901234567890,"result":{"echo":"\\u0000raw0\\u0000"}}',
    '[{"jsonrpc":"2.0","id":98765432109876543210,"result":{"echo":"\\u0000raw0\\u0000"}},{"jsonrpc":"2.0","id":2,"result":{"echo":"\\u0000raw0\\u0000"}}]',
  ]);
});

test("serialize without raw ids is JSON.stringify; undefined members are left out as JSON.stringify does", () => {
  const m = { a: 1, b: undefined, c: [undefined, "x"] };
  assert.equal(serialize(m), JSON.stringify(m));
  const r = { id: new RawJson("1e400"), b: undefined, c: null };
  assert.equal(serialize(r), '{"id":1e400,"c":null}');
  assert.equal(serialize([r, undefined]), '[{"id":1e400,"c":null},null]');
});
