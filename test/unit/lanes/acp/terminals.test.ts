import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_OUTPUT_BYTE_LIMIT, OutputTail, outputLimit } from "../../../../src/lanes/acp/terminals.js";
import { RpcHandlerError } from "../../../../src/transport/json-rpc.js";

test("R-HOSTILE-2: outputByteLimit must be an integer from 0 to the stated maximum", () => {
  assert.equal(outputLimit(undefined), 1024 * 1024);
  assert.equal(outputLimit(null), 1024 * 1024);
  assert.equal(outputLimit(0), 0);
  assert.equal(outputLimit(MAX_OUTPUT_BYTE_LIMIT), MAX_OUTPUT_BYTE_LIMIT);
  for (const bad of [1e12, "x", -1, 1.5, NaN, Infinity, MAX_OUTPUT_BYTE_LIMIT + 1, {}]) {
    assert.throws(() => outputLimit(bad), (e) => e instanceof RpcHandlerError && e.code === -32602 && /from 0 to 67108864/.test(e.message), String(bad));
  }
});

test("R-HOSTILE-2: the output tail keeps the last bytes, cut at a UTF-8 boundary, whatever the chunking", () => {
  const text = "héllo wörld — ünïcode ✓ ".repeat(500);
  const bytes = Buffer.from(text);
  for (const limit of [0, 1, 2, 3, 7, 100, 4096, bytes.length, bytes.length + 10]) {
    for (const size of [1, 3, 64, 5000, bytes.length]) {
      const tail = new OutputTail(limit);
      for (let i = 0; i < bytes.length; i += size) tail.push(bytes.subarray(i, i + size));
      const { text: got, truncated } = tail.read();
      assert.equal(truncated, bytes.length > limit, `limit ${limit} size ${size}`);
      assert.ok(Buffer.byteLength(got) <= limit);
      assert.ok(text.endsWith(got), `limit ${limit} size ${size}`);
      assert.ok(Buffer.byteLength(got) > limit - 4 || limit >= bytes.length, `keeps all but a partial character`);
    }
  }
});
