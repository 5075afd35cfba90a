import { test } from "node:test";
import assert from "node:assert/strict";
import { LineReader } from "../../../src/transport/line-reader.js";

function run(max: number, chunks: (string | Buffer)[]) {
  const lines: string[] = [];
  const over: number[] = [];
  const r = new LineReader({ maxLineBytes: max, onLine: (l) => lines.push(l.toString("utf8")), onOversize: (n) => over.push(n) });
  for (const c of chunks) r.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  r.end();
  return { lines, over };
}

test("lines split across chunks are joined", () => {
  assert.deepEqual(run(100, ["ab", "c\nde", "f\n", "g"]).lines, ["abc", "def", "g"]);
});

test("a \\r before the \\n is dropped and does not count against the limit (R-FRAME-2)", () => {
  const r = run(3, ["abc\r\n", "abcd\r\n"]);
  assert.deepEqual(r.lines, ["abc"]);
  assert.deepEqual(r.over, [6 - 1]);
});

test("a line over the limit is discarded, reported once, and the next line is read (R-FRAME-2)", () => {
  const r = run(4, ["12", "345", "678", "9\nok\n"]);
  assert.deepEqual(r.lines, ["ok"]);
  assert.deepEqual(r.over, [9]);
});

test("an oversized line at EOF is still reported", () => {
  assert.deepEqual(run(2, ["abcdef"]).over, [6]);
});

test("multibyte characters split across chunks survive", () => {
  const b = Buffer.from("é€😀\n");
  assert.deepEqual(run(100, [b.subarray(0, 1), b.subarray(1, 4), b.subarray(4)]).lines, ["é€😀"]);
});

test("discard mode holds no bytes of the oversized line", () => {
  const r = new LineReader({ maxLineBytes: 10, onLine: () => undefined, onOversize: () => undefined });
  for (let i = 0; i < 100; i++) r.push(Buffer.alloc(1000, 65));
  assert.equal(r.buffered, 0);
});
