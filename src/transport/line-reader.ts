// Splits a byte stream into `\n`-terminated lines with a byte limit per line. A line
// over the limit is discarded as it streams by, so memory stays bounded by the limit
// whatever the line's length, and the next line is read normally.

import { reclaimMemory, reclaimYoung } from "./reclaim.js";
import { LIMITS } from "../../generated/ts/limits.js";

export const DEFAULT_MAX_LINE_BYTES: number = LIMITS.frameMaxBytes;

export interface LineReaderOptions {
  /** Most bytes a line may hold, not counting an optional `\r` and the `\n`. */
  maxLineBytes: number;
  /** A complete line without its `\r\n` / `\n`. The buffer may be a view into a chunk: copy it to keep it. */
  onLine: (line: Buffer) => void;
  /** A line over the limit ended (or the stream ended inside one); `bytes` is its length. */
  onOversize: (bytes: number) => void;
}

/** Past this many bytes, a line's bytes are gathered in one staging buffer instead of parts. */
const STAGE_AT = 1 << 20;
/** A staging buffer reserves this much at first (address space: pages count once written). */
const STAGE_RESERVE = 64 * 1024 * 1024 + 1;
/** While a line is staged, the read chunks already copied are collected every so many bytes. */
const YOUNG_GC_EVERY = 8 * 1024 * 1024;

export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  // A line of MiBs: its bytes are copied into one buffer as they come, and the read chunks
  // are let go (collected every few MiB). Neither the chunks nor a joined copy of them pile
  // up next to the line: a 64 MiB line costs about 64 MiB here, not three times that.
  private stage: Buffer | null = null;
  private sinceGc = 0;
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
      if (this.discarding) this.endDiscard(nl - start);
      else if (this.parts.length === 0 && this.stage === null) {
        this.emit(chunk.subarray(start, nl));
      } else {
        if (nl > start) this.append(chunk, start, nl);
        // The last piece may have taken the line over the limit.
        if (this.discarding) this.endDiscard(0);
        else this.emit(this.takeLine());
      }
      start = nl + 1;
    }
  }

  /** The stream ended: a last line without `\n` still counts. */
  end(): void {
    if (this.discarding) this.endDiscard(0);
    else if (this.parts.length || this.stage) this.emit(this.takeLine());
  }

  /** The discarded line ended after `more` further bytes: report it, read normally again. */
  private endDiscard(more: number): void {
    const total = this.discarded + more;
    this.discarding = false;
    this.discarded = 0;
    this.opts.onOversize(total);
  }

  /** The unfinished line as one buffer; the reader lets go of it. */
  private takeLine(): Buffer {
    const size = this.size;
    this.size = 0;
    if (this.stage) {
      const line = this.stage.subarray(0, size);
      this.stage = null;
      this.sinceGc = 0;
      reclaimYoung(); // the last chunks
      return line;
    }
    const parts = this.parts;
    this.parts = [];
    return parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
  }

  private append(chunk: Buffer, start: number, end: number): void {
    const n = end - start;
    if (this.discarding) {
      // The chunks streaming by are garbage at once: memory stays bounded by the limit.
      this.discarded += n;
      this.passed(n);
      return;
    }
    // +1: the line may still end in a `\r` that does not count against the limit.
    if (this.size + n > this.max + 1) {
      this.discarding = true;
      this.discarded = this.size + n;
      this.parts = [];
      this.size = 0;
      if (this.stage !== null) {
        this.stage = null;
        this.sinceGc = 0;
        reclaimMemory(); // the staged bytes
      }
      return;
    }
    if (this.stage === null && this.size + n > STAGE_AT) this.startStage(this.size + n);
    if (this.stage !== null) {
      if (this.size + n > this.stage.length) this.grow(this.size + n);
      chunk.copy(this.stage, this.size, start, end);
      this.size += n;
      this.passed(n);
      return;
    }
    this.parts.push(chunk.subarray(start, end));
    this.size += n;
  }

  /** `n` more bytes of read chunks are no longer needed: collect them every few MiB. */
  private passed(n: number): void {
    this.sinceGc += n;
    if (this.sinceGc >= YOUNG_GC_EVERY) {
      this.sinceGc = 0;
      reclaimYoung();
    }
  }

  private startStage(needed: number): void {
    const cap = Math.min(this.max + 1, Math.max(STAGE_RESERVE, needed));
    const stage = Buffer.allocUnsafeSlow(cap);
    let at = 0;
    for (const p of this.parts) {
      p.copy(stage, at);
      at += p.length;
    }
    this.parts = [];
    this.stage = stage;
  }

  private grow(needed: number): void {
    const old = this.stage!;
    const next = Buffer.allocUnsafeSlow(Math.min(this.max + 1, Math.max(needed, old.length * 2)));
    old.copy(next, 0, 0, this.size);
    this.stage = next;
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
