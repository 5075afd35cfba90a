// An agent on a JSON lane that closed its stdout can never answer again, even if it keeps
// running (R-HOSTILE-5). Most agents exit right after, and their exit says more (code,
// stderr tail): they get a moment to do so before the lane gives up on them.

export const STDOUT_EOF_GRACE_MS = 500;

/** Calls `gone` if `proc` is still running STDOUT_EOF_GRACE_MS after its stdout ended. */
export function whenStdoutEndsWithoutExit(proc: { running: boolean; exited: Promise<unknown> }, gone: () => void): void {
  if (!proc.running) return;
  const timer = setTimeout(() => proc.running && gone(), STDOUT_EOF_GRACE_MS);
  void proc.exited.then(() => clearTimeout(timer));
}
