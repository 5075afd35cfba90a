// One session's events as an async iterator, fed without bound so the reader never waits.
import type { AgentEvent } from "../../generated/ts/types.js";

export class EventStream implements AsyncIterable<AgentEvent> {
  private readonly queue: AgentEvent[] = [];
  private readonly waiting: ((r: IteratorResult<AgentEvent>) => void)[] = [];
  private finished = false;

  /** @internal */
  push(ev: AgentEvent): void {
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

  /** The next event, or `undefined` once the stream has ended. */
  async next(): Promise<AgentEvent | undefined> {
    const r = await this.nextResult();
    return r.done ? undefined : r.value;
  }

  private nextResult(): Promise<IteratorResult<AgentEvent>> {
    const ev = this.queue.shift();
    if (ev !== undefined) return Promise.resolve({ value: ev, done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    return { next: () => this.nextResult() };
  }
}
