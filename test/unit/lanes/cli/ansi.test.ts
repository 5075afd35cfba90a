// Terminal output to plain text (the generic driver over a PTY).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AnsiStripper, stripAnsi } from "../../../../src/lanes/cli/ansi.js";

describe("cli lane: AnsiStripper", () => {
  const cases: [string, string, string][] = [
    ["colours", "\x1b[1;32mok\x1b[0m done", "ok done"],
    ["cursor and erase", "\x1b[2K\x1b[1Gline\x1b[?25h", "line"],
    ["OSC title (BEL and ST)", "\x1b]0;title\x07a\x1b]2;t\x1b\\b", "ab"],
    ["two-byte sequences", "\x1b=\x1b(Bx\x1b>", "x"],
    ["CRLF and lone CR", "a\r\nb\rc", "a\nbc"],
    ["other control characters", "a\x07b\x08c\td", "abc\td"],
    ["unicode kept", "héllo ✓ 日本", "héllo ✓ 日本"],
  ];
  for (const [name, input, want] of cases) it(name, () => assert.equal(stripAnsi(input), want));

  it("holds a sequence split across chunks", () => {
    const s = new AnsiStripper();
    assert.equal(s.push("red \x1b[3"), "red ");
    assert.equal(s.push("1mtext\x1b"), "text");
    assert.equal(s.push("[0m!"), "!");
  });
});
