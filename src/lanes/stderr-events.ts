// Agent stderr as `stderr` events, never buffered without bound (R-HOSTILE-2): stderr is
// always drained (an agent must not block on it), so while the host is not reading
// (the host channel's gate is closed) lines are dropped and counted, and the count is
// reported as one event once the host reads again.
import type { AgentEvent } from "../../generated/ts/types.js";
import type { SupervisedProcess } from "../supervise/supervised-process.js";
import type { FlowGate } from "../transport/flow-gate.js";

export const droppedNote = (n: number): string =>
  `[a4aa: ${n} stderr line${n === 1 ? "" : "s"} of the agent dropped while the host was not reading]`;

/**
 * Forwards `proc`'s stderr lines as events while `inTurn()` (others go to `otherwise`);
 * returns the function that stops forwarding.
 */
export function forwardStderr(
  proc: SupervisedProcess,
  gate: FlowGate,
  inTurn: () => boolean,
  emit: (e: AgentEvent) => void,
  otherwise?: (line: string) => void,
): () => void {
  let dropped = 0;
  const flush = () => {
    if (dropped > 0 && inTurn()) emit({ type: "stderr", text: droppedNote(dropped) });
    dropped = 0;
  };
  const offGate = gate.subscribe((open) => open && flush());
  void proc.exited.then(offGate);
  const offLines = proc.onStderrLine((line) => {
    if (!inTurn()) return otherwise?.(line);
    if (!gate.open) {
      dropped++;
      return;
    }
    flush();
    emit({ type: "stderr", text: line });
  });
  return () => {
    offGate();
    offLines();
  };
}
