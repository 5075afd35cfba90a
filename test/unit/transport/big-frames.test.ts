// Big frames take careful paths (staged reading, piecewise writing, ordered delivery):
// what comes out must be exactly what the simple paths would give.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { LineReader } from "../../../src/transport/line-reader.js";
import { LineSequencer, SKIP } from "../../../src/transport/line-sequencer.js";
import { NdjsonWriter } from "../../../src/transport/ndjson-writer.js";
import { RawJson } from "../../../src/transport/raw-id.js";
import { SLICE_CHARS, hasBigString, jsonPieces, serialize as stringifyWithRaw } from "../../../src/transport/serialize.js";

const MiB = 1024 * 1024;

function read(max: number, chunks: Buffer[]) {
  const lines: Buffer[] = [];
  const over: number[] = [];
  const r = new LineReader({ maxLineBytes: max, onLine: (l) => lines.push(Buffer.from(l)), onOversize: (n) => over.push(n) });
  for (const c of chunks) r.push(c);
  r.end();
  return { lines, over };
}

/** `data` cut into chunks of `size` bytes. */
function chunked(data: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) out.push(data.subarray(i, i + size));
  return out;
}

test("a line of MiBs read in small chunks comes out whole, with its neighbours, \\r dropped", () => {
  const big = Buffer.alloc(3 * MiB + 17, "b");
  big[5] = 0xc3; // a two-byte UTF-8 sequence that a chunk boundary may split
  big[6] = 0xa9;
  const data = Buffer.concat([Buffer.from("first\n"), big, Buffer.from("\r\nlast\n"), Buffer.from("tail")]);
  for (const size of [1000, 65536, 3 * MiB]) {
    const r = read(4 * MiB, chunked(data, size));
    assert.deepEqual(r.over, []);
    assert.equal(r.lines.length, 4);
    assert.equal(r.lines[0].toString(), "first");
    assert.ok(r.lines[1].equals(big));
    assert.equal(r.lines[2].toString(), "last");
    assert.equal(r.lines[3].toString(), "tail");
  }
});

test("a line over the limit is reported with its length, past the staging threshold too, and reading goes on", () => {
  const data = Buffer.concat([Buffer.alloc(3 * MiB, "x"), Buffer.from("\nok\n"), Buffer.alloc(2 * MiB, "y")]);
  const r = read(2 * MiB, chunked(data, 65536));
  assert.deepEqual(
    r.lines.map((l) => l.toString()),
    ["ok", "y".repeat(2 * MiB)],
  );
  assert.deepEqual(r.over, [3 * MiB]);
  // Exactly at the limit (plus a \r) is still a line.
  const exact = read(2 * MiB, chunked(Buffer.concat([Buffer.alloc(2 * MiB, "z"), Buffer.from("\r\n")]), 65536));
  assert.deepEqual(exact.over, []);
  assert.equal(exact.lines[0].length, 2 * MiB);
});

test("jsonPieces joined is byte for byte JSON.stringify (and stringifyWithRaw), whatever the big strings hold", () => {
  // A surrogate pair straddling a slice boundary, escapes, non-ASCII.
  const s = "a".repeat(SLICE_CHARS - 1) + "😀" + '"\\\n\u0001é' + "z".repeat(SLICE_CHARS + 3);
  const msg = { jsonrpc: "2.0", method: "session/event", params: { sessionId: "s-1", event: { type: "messageChunk", text: s }, more: [s, 1, null, "small"] } };
  assert.ok(hasBigString(msg));
  assert.ok(!hasBigString({ a: ["x".repeat(1000)], b: { c: 1 } }));
  assert.equal([...jsonPieces(msg, false)].join(""), JSON.stringify(msg));
  const withRaw = { jsonrpc: "2.0", id: new RawJson("12345678901234567890"), result: { stopReason: "endTurn", text: s } };
  assert.equal([...jsonPieces(withRaw, true)].join(""), stringifyWithRaw(withRaw));
  // A lone high surrogate at the very end of a slice is escaped exactly like JSON.stringify does.
  const lone = { t: "q".repeat(SLICE_CHARS - 1) + "\ud800" + "r".repeat(SLICE_CHARS) };
  assert.equal([...jsonPieces(lone, false)].join(""), JSON.stringify(lone));
});

/** A slow reader: it takes a write only every few ms, so that the writer waits for 'drain'. */
function slowSink() {
  const got: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, cb) {
      got.push(Buffer.from(chunk));
      setTimeout(cb, 1);
    },
  });
  return { sink, text: () => Buffer.concat(got).toString("utf8") };
}

test("NdjsonWriter streams big lines out in slices, byte for byte; what follows keeps its order; flush waits for all", async () => {
  const { sink, text } = slowSink();
  const w = new NdjsonWriter(sink);
  // Non-ASCII, escapes, and a surrogate pair straddling the writer's 1 Mi-character slices.
  const head = '{"method":"session/event","params":{"text":"'.length;
  const big = { method: "session/event", params: { text: "é".repeat(MiB - 1 - head) + "😀\"\\\n\u0001" + "é".repeat(2 * MiB) } };
  assert.equal(JSON.stringify(big).charCodeAt(MiB - 1), 0xd83d, "the pair straddles the first slice boundary");
  const after = { jsonrpc: "2.0", id: 2, result: { text: "x".repeat(2 * MiB) } };
  w.writeMessage({ n: 1 }, false);
  w.writeMessage(big, false);
  assert.equal(w.gate.open, false, "producers pause while a big line is in flight");
  w.writeLine('{"n":3}');
  w.writeMessage(after, false);
  w.writeMessage({ n: 5 }, false);
  w.writeLine("x".repeat(2 * MiB)); // an already serialised big line
  await w.flush();
  const lines = text().split("\n");
  assert.equal(lines.length, 7);
  assert.equal(lines[0], '{"n":1}');
  assert.equal(lines[1], JSON.stringify(big));
  assert.equal(lines[2], '{"n":3}');
  assert.equal(lines[3], JSON.stringify(after));
  assert.equal(lines[4], '{"n":5}');
  assert.equal(lines[5].length, 2 * MiB);
  assert.equal(lines[6], "");
  assert.equal(w.gate.open, true);
});

test("LineSequencer: lines behind a big one wait for it; the end comes last", async () => {
  const seen: string[] = [];
  const seq = new LineSequencer({
    parse: (text) => {
      if (text === "bad") {
        seen.push("error");
        return SKIP;
      }
      return text;
    },
    needsText: () => false,
    deliver: (value) => {
      const text = value as string;
      seen.push(text.length > 100 ? `big:${text.length}` : text);
    },
  });
  seq.push("a", false);
  seq.push("b".repeat(1000), true);
  seq.push("c", false);
  seq.then(() => seen.push("oversize"));
  seq.push("bad", false);
  seq.then(() => seen.push("end"));
  assert.deepEqual(seen, ["a"]);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, ["a", "big:1000", "c", "oversize", "error", "end"]);
  seq.push("d", false); // idle again: at once
  assert.deepEqual(seen.at(-1), "d");
});
