// The descendants of a running process, recorded while its tree is whole (R-SUP-5): one that
// daemonises (setsid) and then outlives its parent loses its lineage, and having seen it
// once is what lets the stop ladder still find it. A look reads the tree from /proc; its pace
// adapts: a tree that showed no descendant at QUIET_LOOKS looks in a row (10 s) is looked at
// every QUIET_PACE_MS until one shows, or a lane notes a turn boundary. 500 idle agents cost
// 3.5 % of a core when each tree is read every second; trees with descendants (tools,
// servers, a sandbox's monitors) stay at one look a second.
import { descendants, type ProcInfo } from "./process-tree.js";

const PACE_MS = 1000;
const QUIET_LOOKS = 10;
const QUIET_PACE_MS = 5000;

export class Lineage {
  /** Every descendant seen, by pid. */
  readonly known = new Map<number, ProcInfo>();
  private timer: NodeJS.Timeout | undefined;
  /** Looks in a row that found no descendant. */
  private quietLooks = 0;
  private stopped = false;

  constructor(private readonly pid: number) {
    this.schedule();
  }

  /** How long until the next look: PACE_MS, or QUIET_PACE_MS for a quiet tree. */
  get paceMs(): number {
    return this.quietLooks >= QUIET_LOOKS ? QUIET_PACE_MS : PACE_MS;
  }

  /** Looks at the tree now (the timer's look): records its descendants, sets the next look's pace. */
  look(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.quietLooks = this.record() ? 0 : this.quietLooks + 1;
    this.schedule();
  }

  /** A turn boundary (lanes note them): the tree is active, looked at every second again. */
  turnBoundary(): void {
    if (this.stopped) return;
    this.record();
    const wasQuiet = this.quietLooks >= QUIET_LOOKS;
    this.quietLooks = 0;
    if (wasQuiet) {
      clearTimeout(this.timer);
      this.schedule();
    }
  }

  /** The process exited: no more looks. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Records what `found` holds (descendants read elsewhere, e.g. by the stop ladder). */
  add(found: readonly ProcInfo[]): void {
    for (const d of found) this.known.set(d.pid, d);
  }

  private record(): number {
    const found = descendants(this.pid);
    this.add(found);
    return found.length;
  }

  private schedule(): void {
    this.timer = setTimeout(() => this.look(), this.paceMs);
    this.timer.unref();
  }
}
