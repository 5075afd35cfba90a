// One session's journal (R-SEQ-1): assigns each event its `seq` (from 1, no gaps, in the
// order sent) and keeps the newest events for `session/history`, bounded by count and size.
import type { AgentEvent, HistoryEntry, HistoryResult } from "../../generated/ts/types.js";
import { DEFAULTS, LIMITS } from "../../generated/ts/limits.js";

/** The bound stated in the schema: the last 10,000 events or 64 MiB, whichever is smaller. */
export const JOURNAL_MAX_EVENTS: number = LIMITS.historyMaxEvents;
export const JOURNAL_MAX_BYTES: number = LIMITS.historyMaxBytes;
export const HISTORY_MAX_LIMIT: number = DEFAULTS.SessionHistoryParams.limit;

export interface JournalLimits {
  maxEvents: number;
  maxBytes: number;
}

export class Journal {
  // Kept events and their sizes side by side (no wrapper object per event: a stream's events
  // stay alive until dropped, and every object the collector has to move costs). Entries
  // before `head` were dropped and are cleared, so that their events can be freed; seqs are
  // consecutive, so `events[head]` has seq `last - size + 1`.
  private events: (AgentEvent | undefined)[] = [];
  private sizes: number[] = [];
  private head = 0;
  private bytes = 0;
  private last = 0;

  constructor(private readonly limits: JournalLimits = { maxEvents: JOURNAL_MAX_EVENTS, maxBytes: JOURNAL_MAX_BYTES }) {}

  /** Numbers and keeps `event`; returns its seq. `bytes`: its serialized size, if known. */
  append(event: AgentEvent, bytes = approximateBytes(event)): number {
    const seq = ++this.last;
    this.events.push(event);
    this.sizes.push(bytes);
    this.bytes += bytes;
    while (this.size > this.limits.maxEvents || (this.bytes > this.limits.maxBytes && this.size > 1)) {
      this.bytes -= this.sizes[this.head]!;
      this.events[this.head] = undefined;
      this.head++;
    }
    // Compacting now and then keeps the drop O(1) amortised.
    if (this.head > 4096 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    return seq;
  }

  get size(): number {
    return this.events.length - this.head;
  }

  get lastSeq(): number {
    return this.last;
  }

  /** The oldest seq still kept (lastSeq + 1 when nothing is). */
  get firstSeq(): number {
    return this.last - this.size + 1;
  }

  /** Bytes of the events kept (as serialized JSON). */
  get keptBytes(): number {
    return this.bytes;
  }

  history(afterSeq = 0, limit = HISTORY_MAX_LIMIT): HistoryResult {
    const first = this.firstSeq;
    // Seqs are consecutive, so the start is found by arithmetic.
    const from = this.head + Math.max(0, afterSeq + 1 - first);
    const events: HistoryEntry[] = [];
    for (let i = from; i < this.events.length && events.length < limit; i++) {
      events.push({ seq: first + (i - this.head), event: this.events[i]! });
    }
    return { events, firstSeq: first, lastSeq: this.last };
  }
}

/** Envelope of a text event as serialized: `{"type":"messageChunk","text":""}` and the like. */
const TEXT_EVENT_OVERHEAD = 40;

function approximateBytes(event: AgentEvent): number {
  // Text events are nearly all of a stream: counted without serializing them a second time,
  // by their UTF-8 size (as serialized; the UTF-16 length undercounts other scripts 3×, and
  // the journal then held three times its bound of such text).
  if (event.type === "messageChunk" || event.type === "thoughtChunk" || event.type === "stderr") return Buffer.byteLength(event.text) + TEXT_EVENT_OVERHEAD;
  return JSON.stringify(event).length;
}
