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
import { setMaxAgentProcesses } from "../supervise/capacity.js";
import { setTerminalLimits } from "../lanes/acp/terminals.js";
import { BOUNDS } from "../../generated/ts/limits.js";
import { sweepLeftovers } from "../supervise/temp-files.js";
import { enableReclaim } from "../transport/reclaim.js";
import { remoteFlagSpecs, remoteListeners } from "./listen-flags.js";
import { Facts } from "../telemetry/facts.js";
import { agentProcessesInUse } from "../supervise/capacity.js";
import { otlpConfig } from "../telemetry/otlp/config.js";
import { scrubOwnEnviron } from "../env/own-environ.js";
import { parseLoopbackEndpoint, type Endpoint } from "../sandbox/relay.js";

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
      "max-agent-processes": { value: true },
      "max-sessions": { value: true },
      "max-terminals": { value: true },
      "terminal-output-budget": { value: true },
      "log-level": { value: true },
      registry: { value: true },
      record: { value: true },
      "otel-endpoint": { value: true },
      "otel-content": {},
      "sandbox-model-endpoint": { value: true },
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
  if (flags["max-agent-processes"] !== undefined) {
    const n = Number(flags["max-agent-processes"]);
    if (!Number.isInteger(n) || n < 1) {
      throw new UsageError(`--max-agent-processes must be a positive whole number, not ${JSON.stringify(flags["max-agent-processes"])}`, "a4aa serve --help");
    }
    setMaxAgentProcesses(n);
  }
  setTerminalLimits({
    perSession: wholeFlag(flags, "max-terminals", BOUNDS.ServeLimits.maxTerminalsPerSession),
    budgetBytes: wholeFlag(flags, "terminal-output-budget", BOUNDS.ServeLimits.terminalOutputBudgetBytes),
  });
  let maxSessions: number | undefined;
  if (flags["max-sessions"] !== undefined) {
    maxSessions = Number(flags["max-sessions"]);
    if (!Number.isInteger(maxSessions) || maxSessions < 1) {
      throw new UsageError(`--max-sessions must be a positive whole number, not ${JSON.stringify(flags["max-sessions"])}`, "a4aa serve --help");
    }
  }
  // R-REMOTE-8: the one registry of facts the server and the sessions report into.
  const facts = new Facts({ agentProcesses: agentProcessesInUse });
  const logger = createLogger(level, undefined, secrets.redact);
  // D10: no process of this user reads the host's secrets from /proc/<sidecar>/environ.
  const scrubbed = scrubOwnEnviron();
  if (scrubbed !== "scrubbed") logger.info(`/proc/${process.pid}/environ still shows the sidecar's environment: ${scrubbed}`);
  // Temporary folders of sidecars that died without cleaning up (their guard killed too).
  const swept = sweepLeftovers();
  if (swept.length) logger.info(`removed ${swept.length} temporary folder(s) left by sidecars that are gone: ${swept.join(", ")}`);
  // Big frames are followed by a full collection: the sidecar's peak RSS stays a small
  // multiple of the frame (measured in bench/README.md). The sidecar's own choice, never the client's.
  enableReclaim();
  // §15: --listen and its companions; a refused configuration is a UsageError (exit 2).
  const remote = await remoteListeners(flags, logger, ms, facts);
  const recording = flags.record === undefined ? undefined : openRecording(String(flags.record), logger);
  let sandboxModelEndpoint: Endpoint | undefined;
  if (flags["sandbox-model-endpoint"] !== undefined) {
    try {
      sandboxModelEndpoint = parseLoopbackEndpoint(String(flags["sandbox-model-endpoint"]));
    } catch (e) {
      throw new UsageError(`--sandbox-model-endpoint: ${(e as Error).message}`, "a4aa serve --help");
    }
  }
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
  // R-OTEL-1: the exporter's code is loaded only when export is configured.
  let otel;
  try {
    otel = otlpConfig(process.env, { endpoint: flags["otel-endpoint"] as string | undefined, content: flags["otel-content"] === true });
  } catch (e) {
    throw new UsageError(`--otel-endpoint / OTEL_EXPORTER_OTLP_ENDPOINT: ${(e as Error).message}`, "a4aa serve --help");
  }
  const tracing = otel ? (await import("../telemetry/otlp/start.js")).startTracing(otel, { version, logger, redact: secrets.redact, facts }) : undefined;
  logger.info(`a4aa ${version} serving a4aa.v1 on ${remote.stdio ? "stdin/stdout" : "its listeners"} (pid ${process.pid})`);
  const code = await runServer({
    ...(remote.stdio ? { input: process.stdin, output: process.stdout } : {}),
    listeners: remote.listeners,
    onListening: remote.listeners.length ? () => remote.announce() : undefined,
    logger,
    version,
    signals: ["SIGTERM", "SIGINT"],
    drainTimeoutMs: remote.drainTimeoutMs,
    facts,
    // The host went away and closing overran its deadline: the exit hook of src/supervise
    // SIGKILLs every agent group still running, the guard ends what left them.
    abandon: (code) => process.exit(code),
    agents: { list: (probe) => catalog.list(probe) },
    onHostLine: recording?.hostLine,
    createSessions: (gate) =>
      new SessionManager({
        gate,
        detachTtlMs: remote.detachTtlMs,
        maxSessions,
        facts,
        logger,
        version,
        hostEnv: process.env,
        trustHostEnv: flags["trust-host-env"] === true,
        catalog,
        permissionTimeoutMs,
        handshakeTimeoutMs,
        timings: cancelGraceMs ? { cancelGraceMs } : undefined,
        recording,
        ...(sandboxModelEndpoint ? { sandboxModelEndpoint } : {}),
        ...(tracing ? { tracer: tracing.tracer } : {}),
      }),
  });
  // Spans still queued go out before the process ends (bounded by the exporter's send timeout).
  await tracing?.shutdown();
  // Everything is closed: the process ends now even if a dependency left a handle open
  // (a sidecar whose host is gone must not linger).
  setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  return code;
}

/** After shutdown, how long the process may take to end by itself. */
const EXIT_GRACE_MS = 2000;

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

/** A whole-number flag within the schema's bounds for it, or undefined when not given. */
function wholeFlag(flags: Record<string, unknown>, name: string, bounds: { minimum: number; maximum?: number }): number | undefined {
  if (flags[name] === undefined) return undefined;
  const n = Number(flags[name]);
  if (!Number.isInteger(n) || n < bounds.minimum || (bounds.maximum !== undefined && n > bounds.maximum)) {
    const range = bounds.maximum !== undefined ? `from ${bounds.minimum} to ${bounds.maximum}` : `of at least ${bounds.minimum}`;
    throw new UsageError(`--${name} must be a whole number ${range}, not ${JSON.stringify(flags[name])}`, "a4aa serve --help");
  }
  return n;
}
