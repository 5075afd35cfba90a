// One host connection (stdio, a unix socket, a WebSocket): its own JSON-RPC peer and writer,
// dispatching the whole of a4aa.v1 to the one session layer of the sidecar. A connection is a
// view, never an owner (§15): when it ends, its sessions detach and go on.
import type { Readable, Writable } from "node:stream";
import type { HostToSidecarMethod, ParamsOf, ResultOf } from "../../generated/ts/methods.js";
import { METHODS, SCHEMA_VERSION, isMethodName } from "../../generated/ts/methods.js";
import { paramsValidators } from "../../generated/ts/method-validators.js";
import type { AgentEvent, PermissionRequest, PermissionSettledParams } from "../../generated/ts/types.js";
import { A4aaError, errors, toA4aaError } from "../errors.js";
import type { Logger } from "../log.js";
import { NdjsonPeer, type BadLine } from "../transport/ndjson-peer.js";
import { RawJson } from "../transport/raw-id.js";
import type { SessionService, Viewer } from "../sessions/service.js";
import { formatParamsErrors } from "./params-errors.js";
import { discoverDocument } from "./discover.js";
import { eventParamsJson } from "./event-json.js";
import type { Operations } from "./operations.js";

export interface ConnectionOptions {
  input: Readable;
  output: Writable;
  logger: Logger;
  version: string;
  maxLineBytes: number;
  /** The tenant it authenticated as ("" without authentication). */
  tenant: string;
  /** For log lines. */
  name: string;
  sessions: SessionService;
  operations: Operations;
  agents: { list(probe?: boolean): Promise<ResultOf<"agents/list">> };
  onHostLine?: (dir: "in" | "out", line: string) => void;
  /** The input ended (EOF, the socket closed). */
  onEnd: () => void;
  /** Writing failed: the connection is as gone as at EOF. */
  onWriteError: (e: Error) => void;
  /** Every error answered to the host, by code (R-REMOTE-8's errors by code). */
  onErrorAnswered?: (code: string) => void;
}

type Handlers = { [M in HostToSidecarMethod]: (params: ParamsOf<M>) => Promise<ResultOf<M>> | ResultOf<M> };

export class HostConnection implements Viewer {
  readonly tenant: string;
  readonly name: string;
  readonly peer: NdjsonPeer;
  private readonly handlers: Handlers;
  /** Answers whose writing must be followed at once by something (session/attach's catch-up). */
  private readonly afterAnswer = new WeakMap<object, () => void>();
  private ended = false;

  /** The connection ended: the sessions neither attach it nor ask it anything. */
  get gone(): boolean {
    return this.ended;
  }

  constructor(private readonly o: ConnectionOptions) {
    this.tenant = o.tenant;
    this.name = o.name;
    const { logger } = o;
    const sessions = o.sessions;
    const peer: NdjsonPeer = new NdjsonPeer({
      input: o.input,
      output: o.output,
      maxLineBytes: o.maxLineBytes,
      checkUtf8: true,
      onLine: o.onHostLine,
      onBadLine: (bad) => {
        const e = badLineError(bad);
        logger.warn(`bad line from ${this.name}: ${e.message}`);
        o.onErrorAnswered?.(e.code);
        peer.writer.writeMessage({ jsonrpc: "2.0", id: bad.rawId !== undefined ? new RawJson(bad.rawId) : null, error: e.toRpcError() }, bad.rawId !== undefined);
      },
      onEnd: () => o.onEnd(),
      onWriteError: (e) => o.onWriteError(e),
      onSent: (msg) => this.sent(msg),
      requireVersion: true,
      writeVersion: true,
      allowBatch: true,
      onRequest: (method, params) => this.dispatch(method, params),
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
        o.onErrorAnswered?.(e.code);
        return e.toRpcError();
      },
      invalidRequest: (reason) => {
        o.onErrorAnswered?.("invalid_request");
        return new A4aaError("invalid_request", "transport", reason).toRpcError();
      },
      onInvalid: (reason) => logger.warn(`invalid JSON-RPC message from ${this.name}: ${reason}`),
      onUnmatchedResponse: (m) => {
        if (logger.enabled("debug")) logger.debug(`a response with id ${JSON.stringify(m.id)} matches no request (late, or answered elsewhere)`);
      },
    });
    this.peer = peer;
    const ops = o.operations;
    this.handlers = {
      ping: () => ({ protocol: "a4aa.v1", version: o.version, schemaVersion: SCHEMA_VERSION }),
      "rpc.discover": () => discoverDocument(),
      "session/open": (p) =>
        p.operationId === undefined ? sessions.open(p, this) : ops.run(this.tenant, p.operationId, "session/open", p, "open", () => sessions.open(p, this)),
      "session/prompt": (p) =>
        p.operationId === undefined
          ? sessions.prompt(p, this)
          : ops.run(this.tenant, p.operationId, "session/prompt", p, "prompt", () => sessions.prompt(p, this)),
      "session/cancel": (p) => sessions.cancel(p, this),
      "session/close": (p) => sessions.close(p, this),
      "agents/list": (p) => o.agents.list(p.probe),
      "session/history": (p) => sessions.history(p, this),
      "agents/prewarm": (p) => sessions.prewarm(p),
      "session/attach": (p) => {
        const { result, finish } = sessions.attach(p, this);
        this.afterAnswer.set(result, finish);
        return result;
      },
      "session/detach": (p) => sessions.detach(p, this),
      "sessions/list": () => sessions.list(this),
    };
  }

  // --- Viewer: what the sessions send this connection ---

  event(sessionId: string, event: AgentEvent, seq: number): void {
    const json = eventParamsJson(sessionId, event, seq);
    if (json === undefined) this.peer.rpc.notify("session/event", { sessionId, event, seq });
    else this.peer.rpc.notifyJson("session/event", json);
  }

  requestPermission(request: PermissionRequest, signal: AbortSignal): Promise<unknown> {
    return this.peer.request("permission/request", request, { signal });
  }

  permissionSettled(params: PermissionSettledParams): void {
    this.peer.notify("permission/settled", params);
  }

  /** A message went to the writer: an attach answer is followed at once by its catch-up. */
  private sent(msg: unknown): void {
    const one = (m: unknown) => {
      const r = m && typeof m === "object" ? (m as { result?: unknown }).result : undefined;
      if (!r || typeof r !== "object") return;
      const then = this.afterAnswer.get(r);
      if (then) {
        this.afterAnswer.delete(r);
        then();
      }
    };
    if (Array.isArray(msg)) msg.forEach(one);
    else one(msg);
  }

  private dispatch(method: string, rawParams: unknown): unknown {
    // A request read before the end but dispatched after it (a batch, a queued line) must not
    // attach, open or prompt for a host that is gone.
    if (this.ended) throw errors.peerClosed("transport", "the host connection ended before this request was handled");
    if (!isMethodName(method) || METHODS[method].direction !== "hostToSidecar") {
      throw new A4aaError("method_not_found", "transport", `a4aa.v1 has no method ${JSON.stringify(method)} for hosts to call`);
    }
    const m = method as HostToSidecarMethod;
    const params = rawParams === undefined ? {} : rawParams;
    const stage = METHODS[m].errorStage ?? "transport";
    if (Array.isArray(params)) {
      throw new A4aaError("invalid_params", stage, "params must be an object: a4aa.v1 methods take their params by name");
    }
    const validate = paramsValidators[m];
    if (!validate(params)) throw new A4aaError("invalid_params", stage, formatParamsErrors(validate.errors));
    return (this.handlers[m] as (p: unknown) => unknown)(params);
  }

  /**
   * The connection is over: it stops reading, detaches from every session (they go on), and
   * its requests still waiting (permission requests) are withdrawn from it.
   */
  end(why: string): void {
    if (this.ended) return;
    this.ended = true;
    this.peer.stopReading();
    this.o.sessions.detachEverywhere(this);
    this.peer.close(errors.peerClosed("transport", `the host connection ended (${why})`));
  }

  flush(): Promise<void> {
    return this.peer.flush();
  }
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
      return new A4aaError("invalid_request", "transport", bad.detail);
  }
}
