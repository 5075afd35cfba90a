// Logs go to stderr only, one line each, with the session id where there is one, and
// passed through the sidecar's redaction (R-REC-1) when it is given one.
//
// A log line must never become a fault of its own: the first write that fails (EPIPE, the
// host that read our stderr is gone) ends logging for good — the logger never throws and
// never retries, so a dead stderr cannot turn into an uncaught exception whose report is
// written to the same dead stderr, again and again. Whoever cares (the server: a host
// that is gone) hears of the failure once, through `onFailed`.
export type LogLevel = "error" | "warn" | "info" | "debug";

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  level: LogLevel;
  error(msg: string, sessionId?: string): void;
  warn(msg: string, sessionId?: string): void;
  info(msg: string, sessionId?: string): void;
  debug(msg: string, sessionId?: string): void;
  enabled(level: LogLevel): boolean;
  /** The error that ended logging (a failed write), once there is one. */
  readonly failed: Error | null;
  /** Calls `fn` once logging has failed (at once if it already has); returns the removal. */
  onFailed(fn: (error: Error) => void): () => void;
}

export function isLogLevel(s: string): s is LogLevel {
  return Object.prototype.hasOwnProperty.call(ORDER, s);
}

/** A line sink: it may throw, or report a failure later through `fail`. */
export type LogWrite = (line: string, fail: (error: Error) => void) => void;

export function createLogger(level: LogLevel = "warn", write: LogWrite = stderrWrite, redact: (text: string) => string = (t) => t): Logger {
  let failed: Error | null = null;
  const watchers = new Set<(error: Error) => void>();
  const fail = (e: Error) => {
    if (failed) return;
    failed = e;
    for (const w of [...watchers]) {
      try {
        w(e);
      } catch {
        /* a watcher must not make it worse */
      }
    }
    watchers.clear();
  };
  const log = (at: LogLevel, msg: string, sessionId?: string) => {
    if (failed || ORDER[at] > ORDER[logger.level]) return;
    try {
      // One line per entry, whatever the message holds.
      const text = redact(msg).replace(/\r?\n/g, "\\n");
      write(`a4aa ${at}${sessionId ? ` [${sessionId}]` : ""}: ${text}\n`, fail);
    } catch (e) {
      fail(e instanceof Error ? e : new Error(String(e)));
    }
  };
  const logger: Logger = {
    level,
    error: (m, s) => log("error", m, s),
    warn: (m, s) => log("warn", m, s),
    info: (m, s) => log("info", m, s),
    debug: (m, s) => log("debug", m, s),
    enabled: (at) => !failed && ORDER[at] <= ORDER[logger.level],
    get failed() {
      return failed;
    },
    onFailed(fn) {
      if (failed) {
        fn(failed);
        return () => undefined;
      }
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
  };
  return logger;
}

// This process's stderr. A write to a pipe whose reader is gone does not throw: the stream
// emits 'error' (EPIPE) a moment later, and without a listener that is an uncaught
// exception. The listener stays for the life of the process, so that every writer of
// stderr (console.error, a dependency) is covered too.
let stderrError: Error | null = null;
const stderrWatchers = new Set<(error: Error) => void>();
let watching = false;

function watchStderr(): void {
  if (watching) return;
  watching = true;
  process.stderr.on("error", (e: Error) => {
    if (stderrError) return;
    stderrError = e;
    for (const w of [...stderrWatchers]) w(e);
    stderrWatchers.clear();
  });
}

/** Writes `line` to stderr until stderr has failed once; after that, nothing. */
export function stderrWrite(line: string, fail: (error: Error) => void): void {
  if (stderrError) return fail(stderrError);
  watchStderr();
  stderrWatchers.add(fail);
  const err = process.stderr;
  if (err.destroyed || !err.writable) return fail(new Error("stderr is closed"));
  err.write(line);
}
