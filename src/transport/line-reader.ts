// Splits a byte stream into `\n`-terminated lines with a byte limit per line. A line
// over the limit is discarded as it streams by, so memory stays bounded by the limit
// whatever the line's length, and the next line is read normally.

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface LineReaderOptions {
  /** Most bytes a line may hold, not counting an optional `\r` and the `\n`. */
  maxLineBytes: number;
  /** A complete line without its `\r\n` / `\n`. The buffer may be a view into a chunk: copy it to keep it. */
  onLine: (line: Buffer) => void;
  /** A line over the limit ended (or the stream ended inside one); `bytes` is its length. */
  onOversize: (bytes: number) => void;
}

export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;
  private discarded = 0;
  private readonly max: number;

  constructor(private readonly opts: LineReaderOptions) {
    this.max = opts.maxLineBytes;
  }

  /** Bytes held for the unfinished line (0 while discarding). */
  get buffered(): number {
    return this.size;
  }

  push(chunk: Buffer): void {
    let start = 0;
    const len = chunk.length;
    while (start < len) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.append(chunk, start, len);
        return;
      }
      if (this.discarding) {
        const total = this.discarded + (nl - start);
        this.discarding = false;
        this.discarded = 0;
        this.opts.onOversize(total);
      } else if (this.parts.length === 0) {
        this.emit(chunk.subarray(start, nl));
      } else {
        this.parts.push(chunk.subarray(start, nl));
        const line = Buffer.concat(this.parts, this.size + (nl - start));
        this.parts = [];
        this.size = 0;
        this.emit(line);
      }
      start = nl + 1;
    }
  }

  /** The stream ended: a last line without `\n` still counts. */
  end(): void {
    if (this.discarding) {
      const total = this.discarded;
      this.discarding = false;
      this.discarded = 0;
      this.opts.onOversize(total);
      return;
    }
    if (this.parts.length) {
      const line = Buffer.concat(this.parts, this.size);
      this.parts = [];
      this.size = 0;
      this.emit(line);
    }
  }

  private append(chunk: Buffer, start: number, end: number): void {
    const n = end - start;
    if (this.discarding) {
      this.discarded += n;
      return;
    }
    // +1: the line may still end in a `\r` that does not count against the limit.
    if (this.size + n > this.max + 1) {
      this.discarding = true;
      this.discarded = this.size + n;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(chunk.subarray(start, end));
    this.size += n;
  }

  private emit(line: Buffer): void {
    const body = line.length > 0 && line[line.length - 1] === 13 ? line.subarray(0, line.length - 1) : line;
    if (body.length > this.max) {
      this.opts.onOversize(line.length);
      return;
    }
    this.opts.onLine(body);
  }
}

/** True when the line holds only spaces, tabs and carriage returns. */
export function isBlank(line: Buffer): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}
