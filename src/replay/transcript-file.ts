// N12: a transcript read without holding it. One pass over the file, a MiB at a time,
// notes where each entry of interest starts and ends; an entry is read again from the file
// (pread) when it is played. What stays in memory: 13 bytes per entry kept (offset, length,
// a flag), the header, and the line being read — however large the transcript.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { TRANSCRIPT_VERSION, type TranscriptEntry, type TranscriptHeader } from "../journal/transcript.js";

const CHUNK = 1 << 20;

/** Entries of a transcript by index, read from the file when asked for. */
export interface EntryList {
  readonly length: number;
  at(i: number): TranscriptEntry | undefined;
  /** Whether entry `i` is a recorded prompt (known without reading it again). */
  isPrompt?(i: number): boolean;
}

export class TranscriptFile {
  readonly header: TranscriptHeader;
  /** Lines that did not parse (a sidecar killed mid-write leaves at most the last one). */
  badLines = 0;
  private readonly fd: number;

  private constructor(
    readonly name: string,
    fd: number,
    header: TranscriptHeader,
  ) {
    this.fd = fd;
    this.header = header;
  }

  /** Opens `file` and checks its header; throws a readable error if it is not a transcript. */
  static open(file: string): TranscriptFile {
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch (e) {
      throw new Error(`cannot read the transcript ${file}: ${(e as Error).message}`);
    }
    try {
      let first: string | undefined;
      scan(fd, 0, (text) => {
        if (!text.trim()) return true;
        first = text;
        return false;
      });
      if (first === undefined) throw new Error(`${file} is empty: expected a header line {"transcript":"a4aa",...}`);
      let header: TranscriptHeader;
      try {
        header = JSON.parse(first) as TranscriptHeader;
      } catch (e) {
        throw new Error(`${file}: the first line is not JSON (${(e as Error).message}); is it an a4aa transcript?`);
      }
      if (header?.transcript !== "a4aa") throw new Error(`${file}: the first line is not an a4aa transcript header ({"transcript":"a4aa",...})`);
      if (header.version !== TRANSCRIPT_VERSION) {
        throw new Error(`${file} is transcript version ${header.version}; this a4aa reads version ${TRANSCRIPT_VERSION}`);
      }
      return new TranscriptFile(file, fd, header);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /** Every entry after the header, in order, with where its line is (for `read`). */
  forEach(visit: (e: TranscriptEntry, offset: number, length: number) => void): void {
    let header = true;
    scan(this.fd, 0, (text, offset, length) => {
      if (!text.trim()) return true;
      if (header) {
        header = false;
        return true;
      }
      let e: TranscriptEntry;
      try {
        e = JSON.parse(text) as TranscriptEntry;
      } catch {
        this.badLines++;
        return true;
      }
      visit(e, offset, length);
      return true;
    });
  }

  /** The entry whose line is at `offset` (`length` bytes). */
  read(offset: number, length: number): TranscriptEntry {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(this.fd, buf, got, length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return JSON.parse(buf.toString("utf8", 0, got)) as TranscriptEntry;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Entries noted by offset and length, read again when asked for (the last few cached). */
export class LazyEntries implements EntryList {
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private prompts = new Uint8Array(1024);
  private n = 0;
  private readonly cache = new Map<number, TranscriptEntry>();

  constructor(private readonly file: TranscriptFile) {}

  get length(): number {
    return this.n;
  }

  add(offset: number, length: number, prompt: boolean): void {
    if (this.n === this.offsets.length) {
      const grow = <T extends Float64Array | Uint32Array | Uint8Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.offsets = grow(this.offsets);
      this.lengths = grow(this.lengths);
      this.prompts = grow(this.prompts);
    }
    this.offsets[this.n] = offset;
    this.lengths[this.n] = length;
    this.prompts[this.n] = prompt ? 1 : 0;
    this.n++;
  }

  at(i: number): TranscriptEntry | undefined {
    if (i < 0 || i >= this.n) return undefined;
    let e = this.cache.get(i);
    if (e) return e;
    e = this.file.read(this.offsets[i], this.lengths[i]);
    if (this.cache.size >= 8) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(i, e);
    return e;
  }

  isPrompt(i: number): boolean {
    return this.prompts[i] === 1;
  }

  *[Symbol.iterator](): Iterator<TranscriptEntry> {
    for (let i = 0; i < this.n; i++) yield this.at(i)!;
  }
}

/**
 * Calls `line` with each line of the file from `start` (its text, byte offset and length,
 * without the `\n`) until it returns false. A line inside one read chunk is taken from it;
 * a longer one is read again on its own once its end is found.
 */
function scan(fd: number, start: number, line: (text: string, offset: number, length: number) => boolean): void {
  const size = fstatSync(fd).size;
  const buf = Buffer.allocUnsafe(CHUNK);
  let lineStart = start;
  let pos = start;
  while (pos < size) {
    const n = readSync(fd, buf, 0, Math.min(CHUNK, size - pos), pos);
    if (n === 0) break;
    let from = 0;
    for (;;) {
      const nl = buf.indexOf(10, from);
      if (nl === -1 || nl >= n) break;
      const end = pos + nl;
      const text = lineStart >= pos ? buf.toString("utf8", lineStart - pos, nl) : readText(fd, lineStart, end - lineStart);
      if (!line(text, lineStart, end - lineStart)) return;
      lineStart = end + 1;
      from = nl + 1;
    }
    pos += n;
  }
  if (lineStart < pos) line(readText(fd, lineStart, pos - lineStart), lineStart, pos - lineStart);
}

function readText(fd: number, offset: number, length: number): string {
  const b = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, b, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return b.toString("utf8", 0, got);
}
