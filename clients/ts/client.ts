// The runtime: spawn `a4aa serve`, speak NDJSON JSON-RPC 2.0 to it (on the package's own
// NdjsonPeer: the sidecar's framing, limits and ordering), route what it sends. Typed stubs
// come from generated.ts.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AgentEvent, ContentBlock, Effort, PermissionRequest, PermissionResponse, SessionEventParams, SessionPromptParams, TurnOutcome } from "../../generated/ts/types.js";
import { RpcErrorCode } from "../../generated/ts/errors.js";
import { RpcHandlerError, RpcResponseError } from "../../src/transport/json-rpc.js";
import { MAX_JSON_DEPTH } from "../../src/transport/depth.js";
import { NdjsonPeer } from "../../src/transport/ndjson-peer.js";
import { A4aaError } from "./errors.js";
import { EventStream, TurnEnd, type StreamItem } from "./events.js";
import { HostMethods, dispatchSidecar, endsEventStream, type CallOptions, type SidecarHandler } from "./generated.js";

/**
 * Answers permission/request: `{selected: optionId}` or `{cancelled: true}`. A rejection, an
 * exception or no handler at all answer an error, which the sidecar fails closed (`cancelled`,
 * decidedBy "policy").
 */
export type PermissionHandler = (req: PermissionRequest) => PermissionResponse | Promise<PermissionResponse>;

export interface ClientOptions {
  /**
   * The sidecar's command line. Default: the `a4aa serve` of the package this client comes
   * from (`a4aa/client`), run by this Node; `["a4aa", "serve"]` from PATH if it is missing.
   */
  command?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Receives the sidecar's log lines; default: written to this process's stderr. */
  onStderr?: (text: string) => void;
  onPermission?: PermissionHandler;
  /** Incoming lines longer than this are skipped without being held whole. Default 1 GiB. */
  maxLineBytes?: number;
  /** How long close() waits for the exit after EOF before killing the sidecar. Default 30 s. */
  closeTimeoutMs?: number;
  /**
   * Sees every line both ways, as text without the newline (`in`: from the sidecar), for
   * transcripts and wire checks. A line of MiBs is shown as `<N chars>`.
   */
  onLine?: (dir: "in" | "out", line: string) => void;
  /** Every message the sidecar sends, parsed, before it is routed (batches as arrays). */
  onMessage?: (msg: unknown) => void;
}

const PROMPT = "session/prompt";

/** `a4aa serve` of this package: dist/clients/ts/client.js → dist/src/cli/main.js. */
function bundledSidecar(): string[] | undefined {
  const bin = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
  return existsSync(bin) ? [process.execPath, bin, "serve"] : undefined;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One connection to a sidecar this client spawns. */
export class A4aaClient extends HostMethods {
  readonly proc: ChildProcessWithoutNullStreams;
  private readonly opts: ClientOptions;
  private readonly link: NdjsonPeer;
  private readonly streams = new Map<string, EventStream>();
  private ended: string | null = null;
  private readonly exited: Promise<ExitStatus>;
  private readonly router: SidecarHandler;
  private warnedNoHandler = false;

  static start(opts: ClientOptions = {}): A4aaClient {
    return new A4aaClient(opts);
  }

  constructor(opts: ClientOptions = {}) {
    super();
    this.opts = opts;
    const [program, ...args] = opts.command ?? bundledSidecar() ?? ["a4aa", "serve"];
    this.proc = spawn(program, args, { env: opts.env, cwd: opts.cwd, stdio: ["pipe", "pipe", "pipe"] });
    this.exited = new Promise((resolve) => this.proc.once("close", (code, signal) => resolve({ code, signal })));
    this.proc.once("error", (e) => this.end(`cannot run ${program}: ${e.message}`));
    this.proc.stderr.setEncoding("utf8");
    this.proc.stderr.on("data", (d: string) => (opts.onStderr ? opts.onStderr(d) : process.stderr.write(d)));
    this.router = {
      sessionEvent: (p: SessionEventParams) => this.events(p.sessionId).push(p.event),
      // Another connection decided a request this one was asked (R-REMOTE-5); nothing waits on it here.
      permissionSettled: () => undefined,
      permissionRequest: async (p: PermissionRequest): Promise<PermissionResponse> => {
        if (!this.opts.onPermission) {
          // An error answer: the sidecar fails it closed as its policy (decidedBy "policy"), not as a host choice.
          if (!this.warnedNoHandler) process.stderr.write("a4aa client: no onPermission handler: permission requests fail closed (cancelled)\n");
          this.warnedNoHandler = true;
          throw new Error("the host has no permission handler");
        }
        return (await this.opts.onPermission(p)) ?? { cancelled: true };
      },
    };
    this.link = new NdjsonPeer({
      input: this.proc.stdout,
      output: this.proc.stdin,
      maxLineBytes: opts.maxLineBytes ?? 1 << 30,
      // The sidecar refuses input nested deeper than MAX_JSON_DEPTH; what it sends wraps that
      // in a few levels of its own. Nothing here walks a message recursively.
      maxDepth: 2 * MAX_JSON_DEPTH,
      checkUtf8: true,
      // One write per message: close() may end stdin right after a call.
      batchWrites: false,
      requireVersion: false,
      writeVersion: true,
      // Answers to batches a caller wrote itself: their responses settle nothing.
      allowBatch: true,
      onLine: opts.onLine,
      onMessage: opts.onMessage,
      onRequest: (method, params) => {
        const d = dispatchSidecar(this.router, method, params);
        if (!d) throw new RpcHandlerError(RpcErrorCode.MethodNotFound, `method not found: ${method}`);
        return d.result;
      },
      onNotification: (method, params) => {
        if (!dispatchSidecar(this.router, method, params)) process.stderr.write(`a4aa client: ignored unknown notification ${method}\n`);
      },
      // The host's handler failed: the sidecar answers the agent "cancelled".
      toRpcError: (e) =>
        e instanceof RpcHandlerError ? e.toRpcError() : { code: RpcErrorCode.AdapterError, message: `handler failed: ${e instanceof Error ? e.message : String(e)}` },
      invalidRequest: (reason) => ({ code: RpcErrorCode.InvalidRequest, message: reason }),
      onBadLine: (bad) =>
        process.stderr.write(
          bad.kind === "frame_too_large" ? `a4aa client: skipped an incoming line over ${opts.maxLineBytes ?? 1 << 30} bytes\n` : `a4aa client: ignored a line that is not JSON (${bad.detail})\n`,
        ),
      onEnd: () => this.end("the sidecar closed its stdout"),
      onWriteError: (e) => this.end(`write failed: ${e.message}`),
    });
  }

  /** Sends any request and resolves with its raw result; the typed methods are the usual way. */
  call(method: string, params: unknown = {}, opts?: CallOptions): Promise<unknown> {
    return this.request(method, params, opts);
  }

  protected request(method: string, params: unknown, opts: CallOptions = {}): Promise<unknown> {
    return this.send(method, params, opts, method === PROMPT ? {} : undefined);
  }

  /** `turn`: a prompt's call token; its TurnEnd goes in the session's events() the moment the answer arrives. */
  private async send(method: string, params: unknown, opts: CallOptions, turn?: object): Promise<unknown> {
    if (this.ended !== null) throw A4aaError.peerClosed(false, this.ended);
    let result: unknown;
    let answered = false;
    const stream = turn ? this.events((params as { sessionId: string }).sessionId) : undefined;
    const onAnswer = (m: Record<string, unknown>) => {
      answered = true;
      const err = Object.prototype.hasOwnProperty.call(m, "error") ? A4aaError.fromWire(m.error) : undefined;
      stream!.push(new TurnEnd(err ? undefined : (m.result as TurnOutcome), err, turn!));
    };
    try {
      result = await this.link.request(method, params, stream ? { ...opts, onAnswer } : opts);
    } catch (e) {
      const err = e instanceof RpcResponseError ? A4aaError.fromWire(e.wire) : e;
      // Gave up without an answer (timeout, abort): the turn's end is marked all the same.
      if (stream && !answered) stream.push(new TurnEnd(undefined, err instanceof Error ? err : new Error(String(err)), turn!));
      throw err;
    }
    if (endsEventStream(method)) this.events((params as { sessionId: string }).sessionId).finish();
    return result;
  }

  /**
   * session/prompt with a text and, after it, content blocks (see `content.ts`: `imageFile`,
   * `fileResource`, `fileLink`), e.g. `client.prompt(id, "What is this?", {content: [imageFile("a.png")]})`.
   * An empty text is left out (the content alone is the prompt).
   */
  prompt(sessionId: string, text: string, opts: CallOptions & { content?: ContentBlock[]; model?: string; effort?: Effort } = {}): Promise<TurnOutcome> {
    const { content, model, effort, ...call } = opts;
    const params: SessionPromptParams = { sessionId, ...(text ? { text } : {}), ...(content?.length ? { content } : {}), ...(model ? { model } : {}), ...(effort ? { effort } : {}) };
    return this.sessionPrompt(params, call);
  }

  /**
   * session/prompt as one stream (`for await … of`): the session's events up to this turn's end,
   * then its TurnEnd (`.outcome`); it throws the prompt's error instead. It reads
   * events(sessionId): read that nowhere else meanwhile.
   */
  async *promptStream(params: SessionPromptParams, opts: CallOptions = {}): AsyncGenerator<StreamItem, void, undefined> {
    const turn = {};
    const answer = this.send(PROMPT, params, opts, turn);
    answer.catch(() => {}); // read below, through its marker or the stream's end
    const stream = this.events(params.sessionId);
    for (;;) {
      const item = await stream.next();
      if (item === undefined) {
        await answer; // the connection ended first: throws peer_closed
        return;
      }
      if (item instanceof TurnEnd) {
        if (item.call !== turn) continue; // another call's prompt
        if (item.error) throw item.error;
        yield item;
        return;
      }
      yield item;
    }
  }

  /** Writes one line as it is (no newline): for tests that speak to the sidecar by hand. */
  writeLine(line: string): void {
    this.link.writeLine(line);
  }

  /**
   * Session `sessionId`'s events in the order the sidecar sent them (`for await … of`), a
   * TurnEnd after each prompt's answer (the turn's events all precede it). Events
   * that arrive before session/open has answered are kept, not dropped; the stream ends after
   * session/close succeeds or the connection ends.
   */
  events(sessionId: string): EventStream {
    let s = this.streams.get(sessionId);
    if (!s) {
      s = new EventStream();
      this.streams.set(sessionId, s);
      if (this.ended !== null) s.finish();
    }
    return s;
  }

  private end(cause: string): void {
    if (this.ended !== null) return;
    this.ended = cause;
    this.link.close(A4aaError.peerClosed(true, cause));
    for (const s of this.streams.values()) s.finish();
  }

  /**
   * Closes the sidecar's stdin (EOF): it closes every session and exits. Resolves with its exit
   * status (killing it after closeTimeoutMs). Calls still pending fail with peer_closed.
   */
  async close(): Promise<ExitStatus> {
    this.proc.stdin.end();
    const timeout = this.opts.closeTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.proc.kill("SIGKILL");
        resolve();
      }, timeout);
      timer.unref();
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    const status = await this.exited;
    this.end("the client closed the connection");
    return status;
  }
}

export type { AgentEvent };
