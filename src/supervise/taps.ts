// The agent-side tap: every process a session's lane starts (through startPipe/startPty)
// is shown to the tap current in that session's async context, so a recorder sees both
// directions of every lane's agent. The lines themselves are the ones the lane already
// frames (its one bounded line reader, its writer): the lane hands each to `lineTap(proc)`.
import { AsyncLocalStorage } from "node:async_hooks";
import type { PipeProcess } from "./pipe-process.js";
import type { PtyProcess } from "./pty-process.js";

export interface TappedCommand {
  program: string;
  args: string[];
  name: string;
}

/**
 * What the lane wrote to the process's stdin (a line, or a prompt it ends stdin with), a
 * line it read from its stdout, or a piece of stdout it reads as text (not as lines).
 */
export type LineTap = (stream: "stdin" | "stdout" | "stdoutText", text: string) => void;

export interface ProcessTap {
  /** A process started; what it returns sees the lines the lane frames for it. */
  started(proc: PipeProcess | PtyProcess, cmd: TappedCommand): LineTap | void;
}

const current = new AsyncLocalStorage<ProcessTap>();
const lineTaps = new WeakMap<object, LineTap>();

/** Runs `fn` with `tap` seeing the processes started from it (and from what it schedules). */
export function withProcessTap<T>(tap: ProcessTap | undefined, fn: () => T): T {
  return tap ? current.run(tap, fn) : fn();
}

export function tapStarted<P extends PipeProcess | PtyProcess>(proc: P, cmd: TappedCommand): P {
  const lines = current.getStore()?.started(proc, cmd);
  if (lines) lineTaps.set(proc, lines);
  return proc;
}

/** The tap of `proc`'s lines, if a recorder watches it (lanes call it once per process). */
export function lineTap(proc: object): LineTap | undefined {
  return lineTaps.get(proc);
}

/** Runs `fn` with no tap: a process shared by many sessions is no one session's to record. */
export function withoutProcessTap<T>(fn: () => T): T {
  return current.exit(fn);
}
