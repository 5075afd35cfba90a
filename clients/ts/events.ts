// One session's events as an async iterator, fed without bound so the reader never waits.
import type { AgentEvent, TurnOutcome } from "../../generated/ts/types.js";

/**
 * The end of a turn: not a wire event but a marker the client puts in the session's events()
 * right after session/prompt answers (every event of a turn precedes its answer on the wire,
 * R-CORE-6). `outcome` is the prompt's result; a prompt that failed (busy, unknown session,
 * timed out, aborted) gets one too, with `error` set (an A4aaError, or the timeout's or abort's error) and no outcome: no turn ran.
 */
export class TurnEnd {
  readonly type = "turnEnd" as const;
  /** @internal which prompt call this ends */
  readonly call: object;
  constructor(
    readonly outcome: TurnOutcome | undefined,
    readonly error: Error | undefined,
    call: object,
  ) {
    this.call = call;
  }
}

/** What events() yields: the session's events, and a TurnEnd after each prompt's answer. */
export type StreamItem = AgentEvent | TurnEnd;

export class EventStream implements AsyncIterable<StreamItem> {
  private readonly queue: StreamItem[] = [];
  private readonly waiting: ((r: IteratorResult<StreamItem>) => void)[] = [];
  private finished = false;

  /** @internal */
  push(ev: StreamItem): void {
    if (this.finished) return;
    const w = this.waiting.shift();
    if (w) w({ value: ev, done: false });
    else this.queue.push(ev);
  }

  /** @internal Ends the stream once the queued events have been read. */
  finish(): void {
    this.finished = true;
    if (!this.queue.length) for (const w of this.waiting.splice(0)) w({ value: undefined, done: true });
  }

  /** The next item, or `undefined` once the stream has ended. */
  async next(): Promise<StreamItem | undefined> {
    const r = await this.nextResult();
    return r.done ? undefined : r.value;
  }

  private nextResult(): Promise<IteratorResult<StreamItem>> {
    const ev = this.queue.shift();
    if (ev !== undefined) return Promise.resolve({ value: ev, done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamItem> {
    return { next: () => this.nextResult() };
  }
}
