// WebSocket text frames as a server sends them (RFC 6455 §5.2: FIN, opcode 1, no mask),
// several built into one buffer so that they leave in one write.

/** Lines longer than this are sent through ws one by one (not copied into a batch). */
export const MAX_BATCHED_CHARS = 64 * 1024;

/** `lines[from..to)`, each one final unmasked text frame, back to back in one buffer. */
export function textFrames(lines: readonly string[], from = 0, to = lines.length): Buffer {
  const sizes = new Array<number>(to - from);
  let total = 0;
  for (let i = from; i < to; i++) {
    const n = Buffer.byteLength(lines[i]!, "utf8");
    sizes[i - from] = n;
    total += n + (n < 126 ? 2 : n < 65536 ? 4 : 10);
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = from; i < to; i++) {
    const n = sizes[i - from]!;
    out[at] = 0x81;
    if (n < 126) {
      out[at + 1] = n;
      at += 2;
    } else if (n < 65536) {
      out[at + 1] = 126;
      out.writeUInt16BE(n, at + 2);
      at += 4;
    } else {
      out[at + 1] = 127;
      out.writeUInt32BE(Math.floor(n / 2 ** 32), at + 2);
      out.writeUInt32BE(n >>> 0, at + 6);
      at += 10;
    }
    at += out.write(lines[i]!, at, "utf8");
  }
  return out;
}
