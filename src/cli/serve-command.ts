// `a4aa serve`: parse the flags, then run the server on stdin/stdout until shutdown.
import { UsageError, parseArgs } from "./args.js";
import { SERVE_HELP } from "./help.js";
import { accessSync, constants, mkdirSync } from "node:fs";
import path from "node:path";
import { createLogger, isLogLevel, type Logger } from "../log.js";
import { runServer } from "../server/server.js";
import { Recording } from "../journal/recorder.js";
import { secrets } from "../journal/redact.js";
import { SessionManager } from "../sessions/manager.js";
import { packageVersion } from "../version.js";
import { AgentCatalog } from "../catalog/catalog.js";
import { RegistryFileError } from "../catalog/acp-registry.js";
import { takeRegistryFlags } from "../catalog/registry-flag.js";
import { remoteFlagSpecs, remoteListeners } from "./listen-flags.js";

export async function serveCommand(argv0: string[]): Promise<number> {
  const { files: registryFiles, rest: argv, missing } = takeRegistryFlags(argv0);
  if (missing) throw new UsageError("option --registry needs a FILE", "a4aa serve --help");
  const { flags, positionals } = parseArgs(
    argv,
    {
      "trust-host-env": {},
      "permission-timeout": { value: true },
      "cancel-grace": { value: true },
      "handshake-timeout": { value: true },
      "log-level": { value: true },
      registry: { value: true },
      record: { value: true },
      ...remoteFlagSpecs,
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
  const logger = createLogger(level, undefined, secrets.redact);
  // §15: --listen and its companions; a refused configuration is a UsageError (exit 2).
  const remote = remoteListeners(flags, logger, ms);
  const recording = flags.record === undefined ? undefined : openRecording(String(flags.record), logger);
  // stdout carries protocol messages only: anything a dependency prints goes to stderr.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const version = packageVersion();
  let catalog: AgentCatalog;
  try {
    catalog = new AgentCatalog({ hostEnv: process.env, registryFiles, warn: (m) => logger.warn(m) });
  } catch (e) {
    if (!(e instanceof RegistryFileError)) throw e;
    process.stderr.write(`a4aa serve: ${e.message}. Fix the file or leave out --registry ${e.file}.\n`);
    return 2;
  }
  logger.info(`a4aa ${version} serving a4aa.v1 on ${remote.stdio ? "stdin/stdout" : "its listeners"} (pid ${process.pid})`);
  const code = await runServer({
    ...(remote.stdio ? { input: process.stdin, output: process.stdout } : {}),
    listeners: remote.listeners,
    onListening: remote.listeners.length ? () => remote.announce() : undefined,
    logger,
    version,
    signals: ["SIGTERM", "SIGINT"],
    agents: { list: (probe) => catalog.list(probe) },
    onHostLine: recording?.hostLine,
    createSessions: (gate) =>
      new SessionManager({
        gate,
        detachTtlMs: remote.detachTtlMs,
        logger,
        version,
        hostEnv: process.env,
        trustHostEnv: flags["trust-host-env"] === true,
        catalog,
        permissionTimeoutMs,
        handshakeTimeoutMs,
        timings: cancelGraceMs ? { cancelGraceMs } : undefined,
        recording,
      }),
  });
  return code;
}

/** `--record DIR`: created if needed (mode 0700); it must be writable. */
function openRecording(dir: string, logger: Logger): Recording {
  const abs = path.resolve(dir);
  try {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
    accessSync(abs, constants.W_OK);
  } catch (e) {
    throw new UsageError(`--record ${JSON.stringify(dir)}: cannot write transcripts there (${(e as Error).message})`, "a4aa serve --help");
  }
  return new Recording(abs, logger);
}
