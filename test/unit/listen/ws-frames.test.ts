// The batched frames must be byte for byte the frames ws would send one by one, at every
// length class (7-bit, 16-bit, 64-bit), and a ws Receiver must read them back in order.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as ws from "ws";
import { textFrames } from "../../../src/listen/ws-frames.js";

// ws's framing classes (exported by the package, not in its type declarations).
interface FrameSender {
  frame(data: Buffer, options: object): Buffer[];
}
interface FrameReceiver {
  on(event: "message", f: (data: Buffer, isBinary: boolean) => void): void;
  write(chunk: Buffer, cb: (e?: Error | null) => void): void;
}
const { Sender, Receiver } = ws as unknown as { Sender: FrameSender; Receiver: new (o: object) => FrameReceiver };

const lines = ["", "a", '{"jsonrpc":"2.0","method":"session/event"}', "é😀".repeat(40), "x".repeat(125), "x".repeat(126), "y".repeat(65_535), "z".repeat(65_536), "ü".repeat(70_000)];

test("textFrames is ws's own framing of each line, back to back", () => {
  const own = Buffer.concat(
    lines.map((l) => Buffer.concat(Sender.frame(Buffer.from(l), { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false }))),
  );
  assert.ok(textFrames(lines).equals(own));
  assert.ok(textFrames(lines, 2, 5).equals(textFrames(lines.slice(2, 5))));
});

test("a ws Receiver reads the batch back as the same messages, in order", async () => {
  const got: string[] = [];
  const r = new Receiver({ isServer: false });
  r.on("message", (data, isBinary) => {
    assert.equal(isBinary, false);
    got.push(data.toString("utf8"));
  });
  await new Promise<void>((resolve, reject) => r.write(textFrames(lines), (e) => (e ? reject(e) : resolve())));
  assert.deepEqual(got, lines);
});
