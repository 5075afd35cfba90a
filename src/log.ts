// Logs go to stderr only, one line each, with the session id where there is one, and
// passed through the sidecar's redaction (R-REC-1) when it is given one.
export type LogLevel = "error" | "warn" | "info" | "debug";

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  level: LogLevel;
  error(msg: string, sessionId?: string): void;
  warn(msg: string, sessionId?: string): void;
  info(msg: string, sessionId?: string): void;
  debug(msg: string, sessionId?: string): void;
  enabled(level: LogLevel): boolean;
}

export function isLogLevel(s: string): s is LogLevel {
  return Object.prototype.hasOwnProperty.call(ORDER, s);
}

export function createLogger(
  level: LogLevel = "warn",
  write: (line: string) => void = (l) => process.stderr.write(l),
  redact: (text: string) => string = (t) => t,
): Logger {
  const log = (at: LogLevel, msg: string, sessionId?: string) => {
    if (ORDER[at] > ORDER[logger.level]) return;
    // One line per entry, whatever the message holds.
    const text = redact(msg).replace(/\r?\n/g, "\\n");
    write(`a4aa ${at}${sessionId ? ` [${sessionId}]` : ""}: ${text}\n`);
  };
  const logger: Logger = {
    level,
    error: (m, s) => log("error", m, s),
    warn: (m, s) => log("warn", m, s),
    info: (m, s) => log("info", m, s),
    debug: (m, s) => log("debug", m, s),
    enabled: (at) => ORDER[at] <= ORDER[logger.level],
  };
  return logger;
}
