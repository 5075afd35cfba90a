// Terminal output to plain text: escape sequences (CSI, OSC, DCS/APC/PM/SOS, two-byte
// ESC sequences) and control characters other than \n and \t are removed, \r\n becomes
// \n. Stateful: a sequence split across chunks is held until it completes.

// A complete sequence at the start of the string, or an incomplete one up to the end.
const CSI = /^\x1b\[[0-?]*[ -/]*[@-~]/;
const STRING_SEQ = /^\x1b[\]P^_X][\s\S]*?(?:\x07|\x1b\\)/;
const TWO_BYTE = /^\x1b[ -/]*[0-~]/;
const C1_CSI = /^\x9b[0-?]*[ -/]*[@-~]/;

export class AnsiStripper {
  private held = "";

  /** Plain text of `chunk`; an unfinished escape sequence at its end is kept for the next call. */
  push(chunk: string): string {
    const s = this.held + chunk;
    this.held = "";
    let out = "";
    let i = 0;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c === 0x1b || c === 0x9b) {
        const rest = s.slice(i);
        const m = (c === 0x9b ? C1_CSI : rest[1] === "[" ? CSI : "]P^_X".includes(rest[1] ?? "") ? STRING_SEQ : TWO_BYTE).exec(rest);
        if (m) {
          i += m[0].length;
          continue;
        }
        // Unfinished: wait for more (bounded, so a stray ESC cannot swallow everything).
        if (rest.length < 4096) {
          this.held = rest;
          break;
        }
        i += 1;
        continue;
      }
      if (c === 13) {
        // \r\n → \n; a lone \r (a redraw of the line) is dropped.
        i += 1;
        continue;
      }
      if ((c < 32 && c !== 10 && c !== 9) || c === 0x7f) {
        i += 1;
        continue;
      }
      out += s[i];
      i += 1;
    }
    return out;
  }

  /** What is left at the end of the stream (an unfinished sequence is dropped). */
  end(): string {
    this.held = "";
    return "";
  }
}

export function stripAnsi(s: string): string {
  return new AnsiStripper().push(s);
}
