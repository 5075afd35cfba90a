// The back-pressure signal between the sidecar's output and the agent stdout readers: the
// gate closes while the consumer lags (NdjsonWriter closes it) and producers pause.
type Listener = (open: boolean) => void;

/** Open while the consumer keeps up; producers pause while it is closed. */
export class FlowGate {
  private closed = false;
  private listeners = new Set<Listener>();

  get open(): boolean {
    return !this.closed;
  }

  set(open: boolean): void {
    if (open === !this.closed) return;
    this.closed = !open;
    for (const l of [...this.listeners]) l(open);
  }

  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Pauses `stream` whenever `gate` closes and resumes it when it opens; returns the detach function. */
export function pauseWithGate(gate: FlowGate, stream: { pause(): unknown; resume(): unknown }): () => void {
  if (!gate.open) stream.pause();
  return gate.subscribe((open) => (open ? stream.resume() : stream.pause()));
}
