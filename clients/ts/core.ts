// What the spawned and the remote client share: the typed calls (HostMethods), the
// per-session event streams with their TurnEnd markers, and the routing of what the sidecar
// sends. The subclasses provide the link: A4aaClient (client.ts, a spawned sidecar on stdio)
// and RemoteClient (remote.ts, a sidecar's WebSocket listener, reconnecting).
import type { ContentBlock, Effort, PermissionRequest, PermissionResponse, SessionEventParams, SessionPromptParams, TurnOutcome } from "../../generated/ts/types.js";
import { RpcErrorCode } from "../../generated/ts/errors.js";
import { RpcHandlerError, RpcResponseError, type RequestOptions } from "../../src/transport/json-rpc.js";
import { A4aaError } from "./errors.js";
import { EventStream, TurnEnd, type StreamItem } from "./events.js";
import { HostMethods, dispatchSidecar, endsEventStream, type CallOptions, type SidecarHandler } from "./generated.js";

/**
 * Answers permission/request: `{selected: optionId}` or `{cancelled: true}`. A rejection, an
 * exception or no handler at all answer an error, which the sidecar fails closed (`cancelled`,
 * decidedBy "policy").
 */
export type PermissionHandler = (req: PermissionRequest) => PermissionResponse | Promise<PermissionResponse>;

/** Options both clients take. */
export interface CommonOptions {
  onPermission?: PermissionHandler;
  /**
   * Sees every line both ways, as text without the newline (`in`: from the sidecar), for
   * transcripts and wire checks. A line of MiBs is shown as `<N chars>`.
   */
  onLine?: (dir: "in" | "out", line: string) => void;
  /** Every message the sidecar sends, parsed, before it is routed (batches as arrays). */
  onMessage?: (msg: unknown) => void;
}

/** prompt()'s options: the call's, content blocks after the text, selectors, an operationId (R-REMOTE-6). */
export type PromptOptions = CallOptions & { content?: ContentBlock[]; model?: string; effort?: Effort; operationId?: string };

export const PROMPT = "session/prompt";

export abstract class ClientCore extends HostMethods {
  protected readonly streams = new Map<string, EventStream>();
  protected ended: string | null = null;
  protected readonly router: SidecarHandler;
  private warnedNoHandler = false;

  constructor(common: CommonOptions) {
    super();
    this.router = {
      sessionEvent: (p: SessionEventParams) => this.deliver(p),
      // Another connection decided a request this one was asked (R-REMOTE-5); nothing waits on it here.
      permissionSettled: () => undefined,
      permissionRequest: async (p: PermissionRequest): Promise<PermissionResponse> => {
        if (!common.onPermission) {
          // An error answer: the sidecar fails it closed as its policy (decidedBy "policy"), not as a host choice.
          if (!this.warnedNoHandler) process.stderr.write("a4aa client: no onPermission handler: permission requests fail closed (cancelled)\n");
          this.warnedNoHandler = true;
          throw new Error("the host has no permission handler");
        }
        return (await common.onPermission(p)) ?? { cancelled: true };
      },
    };
  }

  /** The JSON-RPC side of a link to the sidecar: what it asks and notifies goes to the router. */
  protected peerHandlers() {
    return {
      requireVersion: false,
      writeVersion: true,
      // Answers to batches a caller wrote itself: their responses settle nothing.
      allowBatch: true,
      onRequest: (method: string, params: unknown) => {
        const d = dispatchSidecar(this.router, method, params);
        if (!d) throw new RpcHandlerError(RpcErrorCode.MethodNotFound, `method not found: ${method}`);
        return d.result;
      },
      onNotification: (method: string, params: unknown) => {
        if (!dispatchSidecar(this.router, method, params)) process.stderr.write(`a4aa client: ignored unknown notification ${method}\n`);
      },
      // The host's handler failed: the sidecar answers the agent "cancelled".
      toRpcError: (e: unknown) =>
        e instanceof RpcHandlerError ? e.toRpcError() : { code: RpcErrorCode.AdapterError, message: `handler failed: ${e instanceof Error ? e.message : String(e)}` },
      invalidRequest: (reason: string) => ({ code: RpcErrorCode.InvalidRequest, message: reason }),
    };
  }

  /** One session/event: into its session's stream. */
  protected deliver(p: SessionEventParams): void {
    this.events(p.sessionId).push(p.event);
  }

  /** Sends one request on the link; resolves with its result, rejects with its error. */
  protected abstract transmit(method: string, params: unknown, opts: RequestOptions): Promise<unknown>;

  /** Fails every pending call with `error` (the client has ended). */
  protected abstract closeLink(error: Error): void;

  /** The params the typed methods send (the remote client adds an operationId). */
  protected withOperationId(_method: string, params: unknown): unknown {
    return params;
  }

  /** Sends any request, its params as they are, and resolves with its raw result; the typed methods are the usual way. */
  call(method: string, params: unknown = {}, opts?: CallOptions): Promise<unknown> {
    return this.send(method, params, opts ?? {}, method === PROMPT ? {} : undefined);
  }

  protected request(method: string, params: unknown, opts: CallOptions = {}): Promise<unknown> {
    return this.send(method, this.withOperationId(method, params), opts, method === PROMPT ? {} : undefined);
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
      result = await this.transmit(method, params, stream ? { ...opts, onAnswer } : opts);
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
  prompt(sessionId: string, text: string, opts: PromptOptions = {}): Promise<TurnOutcome> {
    const { content, model, effort, operationId, ...call } = opts;
    const params: SessionPromptParams = {
      sessionId,
      ...(text ? { text } : {}),
      ...(content?.length ? { content } : {}),
      ...(model ? { model } : {}),
      ...(effort ? { effort } : {}),
      ...(operationId ? { operationId } : {}),
    };
    return this.sessionPrompt(params, call);
  }

  /**
   * session/prompt as one stream (`for await … of`): the session's events up to this turn's end,
   * then its TurnEnd (`.outcome`); it throws the prompt's error instead. It reads
   * events(sessionId): read that nowhere else meanwhile.
   */
  async *promptStream(params: SessionPromptParams, opts: CallOptions = {}): AsyncGenerator<StreamItem, void, undefined> {
    const turn = {};
    const answer = this.send(PROMPT, this.withOperationId(PROMPT, params), opts, turn);
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

  /** Ends the client: pending and later calls fail peer_closed, every stream ends. */
  protected end(cause: string): void {
    if (this.ended !== null) return;
    this.ended = cause;
    this.closeLink(A4aaError.peerClosed(true, cause));
    for (const s of this.streams.values()) s.finish();
  }
}
