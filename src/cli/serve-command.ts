// `a4aa serve`: parse the flags, then run the server on stdin/stdout until shutdown.
import { UsageError, parseArgs } from "./args.js";
import { SERVE_HELP } from "./help.js";
import { createLogger, isLogLevel } from "../log.js";
import { runServer } from "../server/server.js";
import { SessionManager } from "../sessions/manager.js";
import { packageVersion } from "../version.js";

export async function serveCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(
    argv,
    {
      "trust-host-env": {},
      "permission-timeout": { value: true },
      "cancel-grace": { value: true },
      "handshake-timeout": { value: true },
      "log-level": { value: true },
      help: {},
    },
    "a4aa serve --help",
  );
  if (flags.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`, "a4aa serve --help");
  const level = (flags["log-level"] as string | undefined) ?? "warn";
  if (!isLogLevel(level)) throw new UsageError(`--log-level must be error, warn, info or debug, not ${JSON.stringify(level)}`, "a4aa serve --help");
  const ms = (name: string): number | undefined => {
    if (flags[name] === undefined) return undefined;
    const v = Number(flags[name]);
    if (!Number.isInteger(v) || v <= 0) {
      throw new UsageError(`--${name} must be a positive number of milliseconds, not ${JSON.stringify(flags[name])}`, "a4aa serve --help");
    }
    return v;
  };
  const permissionTimeoutMs = ms("permission-timeout");
  const cancelGraceMs = ms("cancel-grace");
  const handshakeTimeoutMs = ms("handshake-timeout");
  const logger = createLogger(level);
  // stdout carries protocol messages only: anything a dependency prints goes to stderr.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const version = packageVersion();
  logger.info(`a4aa ${version} serving a4aa.v1 on stdin/stdout (pid ${process.pid})`);
  const code = await runServer({
    input: process.stdin,
    output: process.stdout,
    logger,
    version,
    signals: ["SIGTERM", "SIGINT"],
    createSessions: (host) =>
      new SessionManager({
        host,
        logger,
        version,
        hostEnv: process.env,
        trustHostEnv: flags["trust-host-env"] === true,
        permissionTimeoutMs,
        handshakeTimeoutMs,
        timings: cancelGraceMs ? { cancelGraceMs } : undefined,
      }),
  });
  return code;
}
