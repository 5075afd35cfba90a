// One session's journal (R-SEQ-1): assigns each event its `seq` (from 1, no gaps, in the
// order sent) and keeps the newest events for `session/history`, bounded by count and size.
import type { AgentEvent, HistoryEntry, HistoryResult } from "../../generated/ts/types.js";
import { DEFAULTS, LIMITS } from "../../generated/ts/limits.js";

/** The bound stated in the schema: the last 10,000 events or 64 MiB, whichever is smaller. */
export const JOURNAL_MAX_EVENTS: number = LIMITS.historyMaxEvents;
export const JOURNAL_MAX_BYTES: number = LIMITS.historyMaxBytes;
export const HISTORY_MAX_LIMIT: number = DEFAULTS.SessionHistoryParams.limit;

interface Kept {
  seq: number;
  event: AgentEvent;
  bytes: number;
}

export interface JournalLimits {
  maxEvents: number;
  maxBytes: number;
}

export class Journal {
  /** Entries before `head` were dropped and are cleared, so that their events can be freed. */
  private kept: (Kept | undefined)[] = [];
  /** Index of the oldest kept entry in `kept` (entries before it were dropped). */
  private head = 0;
  private bytes = 0;
  private last = 0;

  constructor(private readonly limits: JournalLimits = { maxEvents: JOURNAL_MAX_EVENTS, maxBytes: JOURNAL_MAX_BYTES }) {}

  /** Numbers and keeps `event`; returns its seq. `bytes`: its serialized size, if known. */
  append(event: AgentEvent, bytes = approximateBytes(event)): number {
    const seq = ++this.last;
    this.kept.push({ seq, event, bytes });
    this.bytes += bytes;
    while (this.size > this.limits.maxEvents || (this.bytes > this.limits.maxBytes && this.size > 1)) {
      this.bytes -= this.kept[this.head]!.bytes;
      this.kept[this.head] = undefined;
      this.head++;
    }
    // Compacting now and then keeps the drop O(1) amortised.
    if (this.head > 4096 && this.head * 2 > this.kept.length) {
      this.kept = this.kept.slice(this.head);
      this.head = 0;
    }
    return seq;
  }

  get size(): number {
    return this.kept.length - this.head;
  }

  get lastSeq(): number {
    return this.last;
  }

  /** The oldest seq still kept (lastSeq + 1 when nothing is). */
  get firstSeq(): number {
    return this.size ? this.kept[this.head]!.seq : this.last + 1;
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
    for (let i = from; i < this.kept.length && events.length < limit; i++) {
      const k = this.kept[i]!;
      events.push({ seq: k.seq, event: k.event });
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
