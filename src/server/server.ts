// `a4aa serve`: one session layer for the whole sidecar, and one connection per host link:
// stdio (the default; its end closes everything, R-EOF-1) and whatever the listeners accept
// (§15; their end only detaches). Shutdown (stdin EOF, SIGTERM, SIGINT) closes every session
// and resolves with the process exit code.
import type { Readable, Writable } from "node:stream";
import type { ResultOf } from "../../generated/ts/methods.js";
import type { Logger } from "../log.js";
import { DEFAULT_MAX_LINE_BYTES } from "../transport/line-reader.js";
import { FlowGate } from "../transport/ndjson-writer.js";
import type { SessionService } from "../sessions/service.js";
import { installLastResort } from "./last-resort.js";
import { HostConnection } from "./connection.js";
import { Operations } from "./operations.js";
import { Facts } from "../telemetry/facts.js";
import { DEFAULTS } from "../../generated/ts/limits.js";

/** A host link a listener accepted (src/listen/). */
export interface AcceptedLink {
  input: Readable;
  output: Writable;
  tenant: string;
  /** For log lines: `ws 127.0.0.1:5123 (alice)`. */
  name: string;
  /** Ends the link from the sidecar's side (shutdown). */
  close(): void;
}

export interface Listener {
  /** What it listens on, for log lines (never with a token). */
  readonly address: string;
  /** Starts accepting; `accept` is called for every authenticated link. */
  start(accept: (link: AcceptedLink) => void): Promise<void>;
  /** Stops accepting and closes what it accepted. */
  close(): Promise<void>;
}

export interface ServerOptions {
  /** The stdio link; absent with `--listen` and no `--stdio` (stdin is then not read). */
  input?: Readable;
  output?: Writable;
  listeners?: Listener[];
  logger: Logger;
  version: string;
  maxLineBytes?: number;
  /** Builds the one session layer; `gate` closes while the stdio host is not reading. */
  createSessions: (gate: FlowGate) => SessionService;
  /** Answers `agents/list` (the agents catalog). */
  agents: { list(probe?: boolean): Promise<ResultOf<"agents/list">> };
  /** Sees every line of the stdio link both ways (the recorder's host side). */
  onHostLine?: (dir: "in" | "out", line: string) => void;
  /**
   * Signals that shut the server down like stdin EOF does; with listeners the first one
   * drains (R-REMOTE-9) and a second one shuts down at once.
   */
  signals?: NodeJS.Signals[];
  /** R-REMOTE-9 `--drain-timeout`: how long turns in flight may finish once draining (default 30000). */
  drainTimeoutMs?: number;
  /** R-REMOTE-8: the facts the server reports into (connections, errors by code); the session layer's own. */
  facts?: Facts;
  /** Called once every listener is listening (tests, the log line). */
  onListening?: () => void;
  /** Shutdown once the stdio host is gone may take this long before `abandon` (default HOST_GONE_DEADLINE_MS). */
  hostGoneDeadlineMs?: number;
  /** Shutdown after the host went away overran its deadline: end the process now, with `code`. */
  abandon?: (code: number) => void;
}

/**
 * Once the stdio host is known to be gone, how long closing may take before the sidecar ends
 * with whatever is left: with the guard's SIGTERM + SIGKILL of stragglers after it, well
 * within R-SUP-4's 5 s.
 */
export const HOST_GONE_DEADLINE_MS = 2500;

export function runServer(opts: ServerOptions): Promise<number> {
  const { logger } = opts;
  const removeLastResort = installLastResort(logger);
  let shutdown: (why: string) => Promise<void> = async () => undefined;
  const gate = new FlowGate();
  const sessions = opts.createSessions(gate);
  const operations = new Operations();
  const maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const facts = opts.facts ?? new Facts();
  const connections = new Set<HostConnection>();
  const counted = () => (facts.connections = connections.size);
  const common = {
    logger,
    version: opts.version,
    maxLineBytes,
    sessions,
    operations,
    agents: opts.agents,
    onErrorAnswered: (code: string) => facts.error(code),
  };

  // The stdio host is gone: shut down, and end the process if that takes too long.
  let hostIsGone = false;
  let deadline: NodeJS.Timeout | undefined;
  const hostGone = (why: string) => {
    if (hostIsGone) return;
    hostIsGone = true;
    logger.error(`${why}: the host is gone; shutting down`);
    const ms = opts.hostGoneDeadlineMs ?? HOST_GONE_DEADLINE_MS;
    deadline = setTimeout(() => {
      logger.error(`closing the sessions took over ${ms} ms after the host went away: ending the sidecar with what is left`);
      opts.abandon?.(1);
    }, ms);
    void shutdown(why);
  };
  // The stderr a stdio host reads failed: it is gone too (and nothing more is logged). A
  // listening sidecar without stdio only stops logging.
  const stopWatchingLog =
    opts.input && opts.output
      ? logger.onFailed((e) => hostGone(`writing to stderr failed (${(e as NodeJS.ErrnoException).code ?? e.message})`))
      : () => undefined;

  let stdio: HostConnection | undefined;
  if (opts.input && opts.output) {
    stdio = new HostConnection({
      ...common,
      input: opts.input,
      output: opts.output,
      tenant: "",
      name: "stdio",
      onHostLine: opts.onHostLine,
      onEnd: () => void shutdown("stdin closed"),
      // R-HOSTILE-4: a host channel that cannot be written is as gone as one at EOF.
      onWriteError: (e) => hostGone(`writing to the host failed (${(e as NodeJS.ErrnoException).code ?? e.message})`),
    });
    connections.add(stdio);
    counted();
    // Agents pause while the stdio host is not reading (it must not be outrun); remote
    // connections never hold them up (R-REMOTE-7: they have their own bound).
    stdio.peer.writer.gate.subscribe((open) => gate.set(open));
  }

  const accept = (link: AcceptedLink) => {
    let c: HostConnection | undefined = undefined;
    const gone = (why: string) => {
      if (!c || !connections.has(c)) return;
      connections.delete(c);
      counted();
      logger.info(`${link.name}: connection ended (${why}); its sessions are detached and go on`);
      c.end(why);
    };
    c = new HostConnection({
      ...common,
      input: link.input,
      output: link.output,
      tenant: link.tenant,
      name: link.name,
      onEnd: () => gone("closed"),
      onWriteError: (e) => {
        gone(`writing failed: ${e.message}`);
        link.close();
      },
    });
    connections.add(c);
    counted();
    logger.info(`${link.name}: connected`);
  };

  const listeners = opts.listeners ?? [];
  const started = Promise.all(listeners.map((l) => l.start(accept).then(() => logger.info(`listening on ${l.address}`))));

  return new Promise<number>((resolve, reject) => {
    let shuttingDown = false;
    let drainTimer: NodeJS.Timeout | undefined;
    shutdown = async (why: string) => {
      if (shuttingDown) return;
      shuttingDown = true;
      clearTimeout(drainTimer);
      logger.info(`shutting down: ${why}`);
      for (const s of signals) process.off(s, onSignal);
      await Promise.allSettled(listeners.map((l) => l.close()));
      for (const c of connections) c.end(`the sidecar is shutting down (${why})`);
      let clean = true;
      try {
        clean = await sessions.closeAll();
      } catch (e) {
        clean = false;
        logger.error(`closing sessions failed: ${(e as Error).message}`);
      }
      await Promise.allSettled([...connections].map((c) => c.flush()));
      if (!clean) logger.error("at least one agent process tree could not be cleaned up; exiting with status 1");
      clearTimeout(deadline);
      stopWatchingLog();
      removeLastResort();
      resolve(clean ? 0 : 1);
    };
    const signals = opts.signals ?? [];
    // R-REMOTE-9: a listening sidecar drains on its first signal: opens are refused
    // (`draining`) and /readyz answers 503 at once, turns in flight may finish for the drain
    // timeout, then everything closes as at shutdown. A second signal closes at once. Plain
    // stdio shuts down at once, as it always did.
    let draining = false;
    const onSignal = (sig: NodeJS.Signals) => {
      if (listeners.length === 0 || draining) {
        if (draining) logger.warn(`${sig} again while draining: closing every session now`);
        void shutdown(sig);
        return;
      }
      draining = true;
      sessions.drain();
      const ms = opts.drainTimeoutMs ?? DEFAULTS.ServeLimits.drainTimeoutMs;
      const running = facts.turnsInFlight;
      logger.warn(
        `${sig}: draining — no new sessions; ${running} turn(s) in flight may finish within ${ms} ms, then every session closes (send ${sig} again to close now)`,
      );
      const timedOut = new Promise<string>((resolve) => (drainTimer = setTimeout(() => resolve(`drain timeout of ${ms} ms reached`), ms)));
      // The last turn's answer is written in the microtasks after it ended: let it go out first.
      const noTurns = facts.noTurns().then(() => new Promise<string>((resolve) => setImmediate(() => resolve("drained: no turn in flight"))));
      void Promise.race([noTurns, timedOut]).then((why) => {
        void shutdown(`${sig}, ${why}`);
      });
    };
    for (const s of signals) process.on(s, onSignal);
    started.then(
      () => opts.onListening?.(),
      (e: Error) => {
        removeLastResort();
        for (const s of signals) process.off(s, onSignal);
        void Promise.allSettled(listeners.map((l) => l.close()));
        reject(e);
      },
    );
    if (!stdio && listeners.length === 0) void shutdown("nothing to serve: no stdio and no listener");
  });
}

