import { test } from "node:test";
import assert from "node:assert/strict";
import { RawJson, idNeedsRawText, rawIds } from "../../../src/transport/raw-id.js";
import { serialize as stringifyWithRaw } from "../../../src/transport/serialize.js";

test("ids that JSON.parse would change are detected (R-FRAME-4)", () => {
  assert.equal(idNeedsRawText(JSON.parse("12345678901234567890")), true);
  assert.equal(idNeedsRawText(1.5), true);
  assert.equal(idNeedsRawText(42), false);
  assert.equal(idNeedsRawText("42"), false);
});

test("the raw id text is found at the top level only (R-FRAME-4)", () => {
  assert.equal(rawIds('{"params":{"id":1},"id" : 12345678901234567890 ,"method":"ping"}'), "12345678901234567890");
  assert.equal(rawIds('{"a":"}\\"id\\":1","id":1.50}'), "1.50");
  assert.deepEqual(rawIds('[{"id":1e400},{"method":"x"},3]'), ["1e400", undefined, undefined]);
});

test("stringifyWithRaw splices raw text unquoted", () => {
  assert.equal(stringifyWithRaw({ id: new RawJson("12345678901234567890"), result: {} }), '{"id":12345678901234567890,"result":{}}');
  assert.equal(stringifyWithRaw([{ id: new RawJson("1.50") }, { id: 2 }]), '[{"id":1.50},{"id":2}]');
});
