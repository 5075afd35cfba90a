// The agent-side tap: every process a session's lane starts (through startPipe/startPty)
// is shown to the tap current in that session's async context, so a recorder sees both
// directions of every lane's agent without any lane knowing about it.
import { AsyncLocalStorage } from "node:async_hooks";
import type { PipeProcess } from "./pipe-process.js";
import type { PtyProcess } from "./pty-process.js";

export interface TappedCommand {
  program: string;
  args: string[];
  name: string;
}

export interface ProcessTap {
  started(proc: PipeProcess | PtyProcess, cmd: TappedCommand): void;
}

const current = new AsyncLocalStorage<ProcessTap>();

/** Runs `fn` with `tap` seeing the processes started from it (and from what it schedules). */
export function withProcessTap<T>(tap: ProcessTap | undefined, fn: () => T): T {
  return tap ? current.run(tap, fn) : fn();
}

export function tapStarted<P extends PipeProcess | PtyProcess>(proc: P, cmd: TappedCommand): P {
  current.getStore()?.started(proc, cmd);
  return proc;
}

/** Runs `fn` with no tap: a process shared by many sessions is no one session's to record. */
export function withoutProcessTap<T>(fn: () => T): T {
  return current.exit(fn);
}
