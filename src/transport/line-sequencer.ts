// LineSequencer keeps a big line's copies from piling up. A line of many MiB passes through copies —
// its bytes (LineReader's staging buffer), its text, the parsed value — each garbage once
// the next exists, but V8 collects them when it gets round to it. Such a line is decoded
// at once (its bytes can go), then parsed, then delivered, each step on a fresh stack after
// a full collection, so that no more than two copies are alive at a time. Lines behind it
// wait their turn: the order never changes. (What is written on is streamed piecewise:
// see NdjsonWriter.)
import { reclaimMemory } from "./reclaim.js";

/** Lines at least this long take the careful path. */
export const BIG_LINE_BYTES = 16 * 1024 * 1024;

/** What LineSequencer does with a line's text. */
export interface LineHandler {
  /** Parses a line; a bad line is handled here and SKIP returned. */
  parse(text: string): unknown;
  /** Whether `deliver` needs the text of this value (else a big line's text is let go first). */
  needsText(value: unknown): boolean;
  deliver(value: unknown, text: string | undefined): void;
}

/** parse's answer for a line that was bad (and has been dealt with). */
export const SKIP: unique symbol = Symbol("skip");

interface Item {
  text: string | undefined;
  big: boolean;
  parsed: boolean;
  value?: unknown;
  /** Not a line: runs when its turn comes (the end of the stream, a bad line's report). */
  then?: () => void;
}

export class LineSequencer {
  private items: Item[] = [];
  private scheduled = false;

  constructor(private readonly h: LineHandler) {}

  /** A decoded line: handled now, unless it is big or a big line is still ahead of it. */
  push(text: string, big: boolean): void {
    if (!big && this.items.length === 0) {
      const value = this.h.parse(text);
      if (value !== SKIP) this.h.deliver(value, text);
      return;
    }
    this.items.push({ text, big, parsed: false });
    this.schedule();
  }

  /** Runs `fn` once every line pushed so far has been delivered. */
  then(fn: () => void): void {
    if (this.items.length === 0) fn();
    else this.items.push({ text: undefined, big: false, parsed: true, then: fn });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // A microtask: it runs before any other I/O callback (no line or the stream's end
    // overtakes it), on a stack that no longer holds the line's buffers.
    queueMicrotask(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    while (this.items.length) {
      const it = this.items[0];
      if (it.then) {
        this.items.shift();
        it.then();
        continue;
      }
      if (!it.big) {
        this.items.shift();
        const value = this.h.parse(it.text!);
        if (value !== SKIP) this.h.deliver(value, it.text);
        continue;
      }
      if (!it.parsed) {
        const text = it.text!;
        it.text = undefined;
        reclaimMemory(); // the line's bytes
        const value = this.h.parse(text);
        if (value === SKIP) {
          this.items.shift();
          continue;
        }
        it.value = value;
        if (this.h.needsText(value)) it.text = text;
        it.parsed = true;
        this.schedule(); // deliver on a fresh stack, once the text is unreachable
        return;
      }
      this.items.shift();
      const { value, text } = it;
      it.value = it.text = undefined;
      reclaimMemory(); // the text the value was parsed from
      this.h.deliver(value, text);
    }
  };
}
