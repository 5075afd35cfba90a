// `a4aa serve`: reads the host's NDJSON from `input`, dispatches JSON-RPC, and is the
// only writer of `output`. Shutdown (stdin EOF, SIGTERM, SIGINT) closes every session
// and resolves with the process exit code.
//
// A host that is gone — a write to its stdout or to the stderr it reads failed (EPIPE) —
// shuts the sidecar down the same way, within a deadline: nobody waits for the turns'
// outcomes any more, and a sidecar must not outlive its host by more than R-SUP-4's 5 s.
// If closing overruns HOST_GONE_DEADLINE_MS, `abandon` ends the process with whatever is
// still running (the process's exit hook SIGKILLs every agent group, the guard the rest).
import type { Readable, Writable } from "node:stream";
import type { HostToSidecarMethod, ParamsOf, ResultOf } from "../../generated/ts/methods.js";
import { METHODS, SCHEMA_VERSION, isMethodName } from "../../generated/ts/methods.js";
import { paramsValidators } from "../../generated/ts/method-validators.js";
import { A4aaError, errors, toA4aaError } from "../errors.js";
import type { Logger } from "../log.js";
import { DEFAULT_MAX_LINE_BYTES } from "../transport/line-reader.js";
import { NdjsonPeer, type BadLine } from "../transport/ndjson-peer.js";
import { RawJson } from "../transport/raw-id.js";
import type { HostChannel } from "../sessions/host-channel.js";
import type { SessionService } from "../sessions/service.js";
import { formatParamsErrors } from "./params-errors.js";
import { installLastResort } from "./last-resort.js";
import { discoverDocument } from "./discover.js";

export interface ServerOptions {
  input: Readable;
  output: Writable;
  logger: Logger;
  version: string;
  maxLineBytes?: number;
  /** Builds the session layer once the host channel exists. */
  createSessions: (host: HostChannel) => SessionService;
  /** Answers `agents/list` (the agents catalog). */
  agents: { list(probe?: boolean): Promise<ResultOf<"agents/list">> };
  /** Sees every line of the host link both ways (the recorder's host side). */
  onHostLine?: (dir: "in" | "out", line: string) => void;
  /** Signals that shut the server down like stdin EOF does. */
  signals?: NodeJS.Signals[];
  /** Shutdown once the host is gone may take this long before `abandon` (default HOST_GONE_DEADLINE_MS). */
  hostGoneDeadlineMs?: number;
  /** Shutdown after the host went away overran its deadline: end the process now, with `code`. */
  abandon?: (code: number) => void;
}

/**
 * Once the host is known to be gone, how long closing may take before the sidecar ends
 * with whatever is left: with the guard's SIGTERM + SIGKILL of stragglers after it, well
 * within R-SUP-4's 5 s.
 */
export const HOST_GONE_DEADLINE_MS = 2500;

type Handlers = { [M in HostToSidecarMethod]: (params: ParamsOf<M>) => Promise<ResultOf<M>> | ResultOf<M> };

export function runServer(opts: ServerOptions): Promise<number> {
  const { logger } = opts;
  const removeLastResort = installLastResort(logger);
  let shutdown: (why: string) => Promise<void> = async () => undefined;

  const peer: NdjsonPeer = new NdjsonPeer({
    input: opts.input,
    output: opts.output,
    maxLineBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    checkUtf8: true,
    onLine: opts.onHostLine,
    onBadLine: (bad) => {
      const e = badLineError(bad);
      logger.warn(`bad line from the host: ${e.message}`);
      peer.writer.writeMessage({ jsonrpc: "2.0", id: bad.rawId !== undefined ? new RawJson(bad.rawId) : null, error: e.toRpcError() }, bad.rawId !== undefined);
    },
    onEnd: () => void shutdown("stdin closed"),
    // R-HOSTILE-4: a host channel that cannot be written is as gone as one at EOF.
    onWriteError: (e) => hostGone(`writing to the host failed (${(e as NodeJS.ErrnoException).code ?? e.message})`),
    requireVersion: true,
    writeVersion: true,
    allowBatch: true,
    onRequest: (method, params) => dispatch(method, params),
    onNotification: (method) => {
      if (method === "session/cancel") {
        logger.warn(
          "ignored a session/cancel notification (no id): cancel is only defined as a request, so that its outcome can be acknowledged",
        );
      } else {
        logger.warn(`ignored a notification for ${JSON.stringify(method)}: the host sends no notifications in a4aa.v1`);
      }
    },
    toRpcError: (err, method) => {
      const e = toA4aaError(err, (isMethodName(method) && METHODS[method].errorStage) || "transport");
      if (e.code === "internal_error") logger.error(`${method} failed unexpectedly: ${(err as Error)?.stack ?? e.message}`);
      return e.toRpcError();
    },
    invalidRequest: (reason) => errors.invalidRequest("transport", reason).toRpcError(),
    onInvalid: (reason) => logger.warn(`invalid JSON-RPC message from the host: ${reason}`),
    onUnmatchedResponse: (m) => {
      if (logger.enabled("debug")) logger.debug(`a response with id ${JSON.stringify(m.id)} matches no request (late?)`);
    },
  });

  const host: HostChannel = {
    gate: peer.writer.gate,
    event: (sessionId, event, seq) => peer.notify("session/event", { sessionId, event, seq }),
    requestPermission: (request, signal) => peer.request("permission/request", request, { signal }),
  };
  const sessions = opts.createSessions(host);

  const handlers: Handlers = {
    ping: () => ({ protocol: "a4aa.v1", version: opts.version, schemaVersion: SCHEMA_VERSION }),
    "rpc.discover": () => discoverDocument(),
    "session/open": (p) => sessions.open(p),
    "session/prompt": (p) => sessions.prompt(p),
    "session/cancel": (p) => sessions.cancel(p),
    "session/close": (p) => sessions.close(p),
    "agents/list": (p) => opts.agents.list(p.probe),
    "session/history": (p) => sessions.history(p),
    "agents/prewarm": (p) => sessions.prewarm(p),
  };

  function dispatch(method: string, rawParams: unknown): unknown {
    if (!isMethodName(method) || METHODS[method].direction !== "hostToSidecar") {
      throw errors.methodNotFound("transport", `a4aa.v1 has no method ${JSON.stringify(method)} for hosts to call`);
    }
    const m = method as HostToSidecarMethod;
    const params = rawParams === undefined ? {} : rawParams;
    const stage = METHODS[m].errorStage ?? "transport";
    if (Array.isArray(params)) {
      throw errors.invalidParams(stage, "params must be an object: a4aa.v1 methods take their params by name");
    }
    const validate = paramsValidators[m];
    if (!validate(params)) throw errors.invalidParams(stage, formatParamsErrors(validate.errors));
    return (handlers[m] as (p: unknown) => unknown)(params);
  }

  // The host is gone: shut down, and end the process if that takes too long.
  let gone = false;
  let deadline: NodeJS.Timeout | undefined;
  const hostGone = (why: string) => {
    if (gone) return;
    gone = true;
    logger.error(`${why}: the host is gone; shutting down`);
    const ms = opts.hostGoneDeadlineMs ?? HOST_GONE_DEADLINE_MS;
    deadline = setTimeout(() => {
      logger.error(`closing the sessions took over ${ms} ms after the host went away: ending the sidecar with what is left`);
      opts.abandon?.(1);
    }, ms);
    void shutdown(why);
  };
  // The stderr the host reads failed: it is gone too (and nothing more is logged).
  const stopWatchingLog = logger.onFailed((e) => hostGone(`writing to stderr failed (${(e as NodeJS.ErrnoException).code ?? e.message})`));

  return new Promise<number>((resolve) => {
    let shuttingDown = false;
    shutdown = async (why: string) => {
      if (shuttingDown) return;
      shuttingDown = true;
      logger.info(`shutting down: ${why}`);
      peer.stopReading();
      for (const s of signals) process.off(s, onSignal);
      // Calls still waiting on the host (permission requests) fail closed.
      peer.close(errors.peerClosed("transport", `the host connection ended (${why})`));
      let clean = true;
      try {
        clean = await sessions.closeAll();
      } catch (e) {
        clean = false;
        logger.error(`closing sessions failed: ${(e as Error).message}`);
      }
      await peer.flush();
      if (!clean) logger.error("at least one agent process tree could not be cleaned up; exiting with status 1");
      clearTimeout(deadline);
      stopWatchingLog();
      removeLastResort();
      resolve(clean ? 0 : 1);
    };
    const signals = opts.signals ?? [];
    const onSignal = (sig: NodeJS.Signals) => void shutdown(sig);
    for (const s of signals) process.on(s, onSignal);
  });
}

/** The error a bad host line is answered with (R-FRAME-2, R-FRAME-3, R-HOSTILE-1). */
function badLineError(bad: BadLine): A4aaError {
  switch (bad.kind) {
    case "frame_too_large":
    case "invalid_utf8":
    case "parse_error":
      return new A4aaError(bad.kind, "transport", bad.detail);
    case "too_deep":
    case "not_object":
      return errors.invalidRequest("transport", bad.detail);
  }
}
