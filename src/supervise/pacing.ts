// At most one agent process starts per turn of the event loop. Opens that arrive together
// (500 in one read) would otherwise fork one after another in one macrotask, 2–4 ms each:
// no agent's handshake is read, no /readyz answered, until the last one has started, and
// every open is answered at the end (issue 26: p50 = p99). Between two starts the loop reads
// what the agents already started have written, so each open is answered as soon as its
// agent is ready. A start with none waiting before it goes at once.
const waiting: (() => void)[] = [];
let started = false;
let scheduled = false;

/** Resolves when this start may go. */
export function startSlot(): Promise<void> {
  if (!scheduled) {
    scheduled = true;
    setImmediate(turn);
  }
  if (!started && waiting.length === 0) {
    started = true;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

/** Once per turn of the loop while starts wait: the next one goes. */
function turn(): void {
  started = false;
  const go = waiting.shift();
  if (go) {
    started = true;
    go();
  }
  // An immediate queued by an immediate runs in the next turn, after that turn's I/O.
  if (started) setImmediate(turn);
  else scheduled = false;
}
