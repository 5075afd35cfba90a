// The Codex turn in flight, from `turn/start` to `turn/completed`: its id once known, whether
// Codex has started it (only then does it take an interrupt), and its end.
import type * as C from "../../../generated/codex/types.js";

/** The turn in flight, from `turn/start` to `turn/completed`. */
export class ActiveTurn {
  id: string | null = null;
  /** `turn/started` seen: Codex will now accept an interrupt. */
  started = false;
  finished = false;
  cancelRequested = false;
  interrupts = 0;
  /** An interrupt was refused before the turn started: send it again on `turn/started`. */
  retryOnStart = false;
  readonly done: Promise<C.Turn>;
  readonly idKnown: Promise<void>;
  private resolveDone!: (t: C.Turn) => void;
  private rejectDone!: (e: unknown) => void;
  private resolveId!: () => void;

  constructor() {
    this.done = new Promise((res, rej) => {
      this.resolveDone = res;
      this.rejectDone = rej;
    });
    this.idKnown = new Promise((r) => (this.resolveId = r));
    // A turn that fails before anyone awaits it must not be an unhandled rejection.
    this.done.catch(() => undefined);
  }

  setId(id: string): void {
    this.id = id;
    this.resolveId();
  }

  finish(t: C.Turn): void {
    if (this.finished) return;
    this.finished = true;
    this.resolveDone(t);
    this.resolveId();
  }

  fail(e: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.rejectDone(e);
    this.resolveId();
  }
}
