// A JSON-RPC 2.0 peer usable in both directions: the host link (a4aa serve answers
// requests and sends its own) and the agent links (ACP, Codex app-server). It knows
// nothing of framing: NdjsonPeer hands it parsed messages and gives it a line writer.
import { RawJson, idNeedsRawText, rawIds } from "./raw-id.js";
import { serialize } from "./serialize.js";
import { RpcErrorCode } from "../errors.js";

// One JSON-RPC error object and one handler error for every peer (src/errors.ts).
import { RpcHandlerError, type RpcErrorObject } from "../errors.js";
export { RpcHandlerError, type RpcErrorObject };

/** The peer answered our request with an error. */
export class RpcResponseError extends Error {
  readonly code: number;
  readonly data: unknown;
  /** The error member as the peer sent it (for clients that read it their own way). */
  wire: unknown;
  constructor(readonly method: string, error: RpcErrorObject) {
    super(`${method}: ${error.message} (${error.code})`);
    this.name = "RpcResponseError";
    this.code = error.code;
    this.data = error.data;
    this.wire = error;
  }
}

export interface RequestContext {
  /** The request id as parsed (any JSON value). */
  id: unknown;
}

export interface PeerOptions {
  /** Writes one serialised message (no newline). */
  sendLine: (json: string) => void;
  /**
   * When set, used instead of sendLine: the writer serialises `msg` itself (`raw`: with
   * serialize.ts), so that it can stream a big one out and hold later ones back.
   */
  sendMessage?: (msg: unknown, raw: boolean) => void;
  /** Answers an incoming request; what it throws becomes the error response. */
  onRequest: (method: string, params: unknown, ctx: RequestContext) => unknown;
  onNotification: (method: string, params: unknown) => void;
  /** Turns what a request handler threw into a JSON-RPC error object. */
  toRpcError: (error: unknown, method: string) => RpcErrorObject;
  /** The error object for a message that is not JSON-RPC 2.0 (answered when it has an id). */
  invalidRequest: (reason: string) => RpcErrorObject;
  /** Host link: require `"jsonrpc": "2.0"`. Agent links (Codex omits it): accept either. */
  requireVersion: boolean;
  /** Put `"jsonrpc": "2.0"` on what we send (Codex's dialect leaves it out). */
  writeVersion: boolean;
  /** Accept batches (arrays). The host link does; agent links treat them as invalid. */
  allowBatch: boolean;
  /** A message that is not JSON-RPC, after it has been answered (when it had an id). */
  onInvalid?: (reason: string, message: unknown) => void;
  /** A response whose id matches no pending request (late, or never asked). */
  onUnmatchedResponse?: (message: Record<string, unknown>) => void;
}

export interface RequestOptions {
  /** Reject with `onTimeout()`'s error after this many ms. */
  timeoutMs?: number;
  onTimeout?: () => Error;
  /** Abandon the request: it rejects with the signal's reason; a late answer is ignored. */
  signal?: AbortSignal;
  /** Sees the answer synchronously, before anything after it on the wire is handled. */
  onAnswer?: (message: Record<string, unknown>) => void;
  /** Members the peer reads beside `params` (codex app-server's `trace`); never id, method, params. */
  envelope?: Record<string, unknown>;
}

interface Pending {
  method: string;
  onAnswer?: (message: Record<string, unknown>) => void;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  cleanup: () => void;
}

type Obj = Record<string, unknown>;

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Whether JsonRpcPeer.handle reads the source text of `value` (an id to echo verbatim). */
export function needsSourceText(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((m) => m && typeof m === "object" && idNeedsRawText((m as Obj).id));
  return !!value && typeof value === "object" && idNeedsRawText((value as Obj).id);
}

export class JsonRpcPeer {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private closedWith: Error | null = null;

  constructor(private readonly opts: PeerOptions) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }

  /**
   * Handles one parsed message (object or batch). `text` is the line it came from; it is
   * only read when an id cannot be echoed from its parsed value.
   */
  handle(value: unknown, text?: string): void {
    if (Array.isArray(value)) {
      this.handleBatch(value, text);
      return;
    }
    let rawId: string | undefined;
    if (text !== undefined && value && typeof value === "object" && idNeedsRawText((value as Obj).id)) {
      rawId = rawIds(text) as string | undefined;
    }
    const reply = this.handleOne(value, rawId);
    // The member-by-member serialiser is only needed when a raw id has to be written.
    if (reply) reply.then((msg) => this.send(msg, rawId !== undefined));
  }

  private handleBatch(items: unknown[], text: string | undefined): void {
    if (!this.opts.allowBatch || items.length === 0) {
      const reason = items.length === 0 ? "an empty batch" : "batches are not accepted on this link";
      this.sendInvalid(null, undefined, reason, items);
      return;
    }
    let raws: (string | undefined)[] | undefined;
    if (text !== undefined && items.some((m) => m && typeof m === "object" && idNeedsRawText((m as Obj).id))) {
      raws = rawIds(text) as (string | undefined)[];
    }
    const replies: Promise<Obj>[] = [];
    items.forEach((m, i) => {
      const r = this.handleOne(m, raws?.[i], true);
      if (r) replies.push(r);
    });
    // JSON-RPC: a batch of notifications gets no answer at all.
    if (replies.length) Promise.all(replies).then((msgs) => this.send(msgs, raws !== undefined));
  }

  /** Returns the response to write, if the message calls for one. */
  private handleOne(msg: unknown, rawId: string | undefined, inBatch = false): Promise<Obj> | undefined {
    if (!msg || typeof msg !== "object" || Array.isArray(msg)) {
      return this.invalid(null, undefined, inBatch ? "a batch element is not an object" : "not a JSON-RPC object", msg);
    }
    const m = msg as Obj;
    const hasId = hasOwn(m, "id");
    if (this.opts.requireVersion && m.jsonrpc !== "2.0") {
      return this.invalid(hasId ? m.id : null, rawId, 'missing "jsonrpc": "2.0"', msg);
    }
    if (typeof m.method === "string") {
      if (hasOwn(m, "params") && (m.params === null || typeof m.params !== "object")) {
        return this.invalid(hasId ? m.id : null, rawId, "params must be an object or an array", msg);
      }
      if (!hasId) {
        this.opts.onNotification(m.method, m.params);
        return undefined;
      }
      return this.answer(m.method, m.params, m.id, rawId);
    }
    if (hasOwn(m, "method")) return this.invalid(hasId ? m.id : null, rawId, "method must be a string", msg);
    if (hasId && (hasOwn(m, "result") || hasOwn(m, "error"))) {
      this.settle(m);
      return undefined;
    }
    return this.invalid(hasId ? m.id : null, rawId, "neither a request, a notification nor a response", msg);
  }

  private invalid(id: unknown, rawId: string | undefined, reason: string, msg: unknown): Promise<Obj> {
    this.opts.onInvalid?.(reason, msg);
    return Promise.resolve(this.errorMessage(id, rawId, this.opts.invalidRequest(reason)));
  }

  private sendInvalid(id: unknown, rawId: string | undefined, reason: string, msg: unknown): void {
    this.invalid(id, rawId, reason, msg).then((out) => this.send(out, rawId !== undefined));
  }

  private answer(method: string, params: unknown, id: unknown, rawId: string | undefined): Promise<Obj> {
    const echo = rawId !== undefined ? new RawJson(rawId) : id;
    const fail = (err: unknown) => this.envelope({ id: echo, error: this.opts.toRpcError(err, method) });
    // The handler starts now, in the order the messages came: a notification that follows
    // a request (a cancel after its prompt) never overtakes it. An async handler returns at
    // its first await, so a slow one never holds up the next message.
    let result: unknown;
    try {
      result = this.opts.onRequest(method, params, { id });
    } catch (err) {
      return Promise.resolve(fail(err));
    }
    return Promise.resolve(result).then((r) => this.envelope({ id: echo, result: r === undefined ? null : r }), fail);
  }

  private errorMessage(id: unknown, rawId: string | undefined, error: RpcErrorObject): Obj {
    return this.envelope({ id: rawId !== undefined ? new RawJson(rawId) : id, error });
  }

  private envelope(body: Obj): Obj {
    return this.opts.writeVersion ? { jsonrpc: "2.0", ...body } : body;
  }

  private settle(m: Obj): void {
    // Ids match by JSON value: our ids are numbers, so "1" is not 1.
    const id = m.id;
    const p = typeof id === "number" ? this.pending.get(id) : undefined;
    if (!p) {
      this.opts.onUnmatchedResponse?.(m);
      return;
    }
    this.pending.delete(id as number);
    p.cleanup();
    p.onAnswer?.(m);
    if (hasOwn(m, "error")) {
      const e = m.error as RpcErrorObject | null;
      const obj: RpcErrorObject =
        e && typeof e === "object"
          ? { code: typeof e.code === "number" ? e.code : RpcErrorCode.InternalError, message: String(e.message ?? "error"), data: e.data }
          : { code: RpcErrorCode.InternalError, message: String(e) };
      const err = new RpcResponseError(p.method, obj);
      err.wire = e;
      p.reject(err);
    } else {
      p.resolve(m.result);
    }
  }

  /** Sends a request and resolves with its result (rejects with RpcResponseError). */
  request<R = unknown>(method: string, params?: unknown, opts: RequestOptions = {}): Promise<R> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        if (this.pending.delete(id)) {
          cleanup();
          reject(opts.signal?.reason ?? new Error("aborted"));
        }
      };
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
      };
      if (opts.signal?.aborted) {
        reject(opts.signal.reason);
        return;
      }
      this.pending.set(id, { method, onAnswer: opts.onAnswer, resolve: resolve as (v: unknown) => void, reject, cleanup });
      if (opts.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          if (this.pending.delete(id)) {
            cleanup();
            reject(opts.onTimeout ? opts.onTimeout() : new Error(`${method}: no answer within ${opts.timeoutMs} ms`));
          }
        }, opts.timeoutMs);
      }
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      const { id: _id, method: _method, params: _params, jsonrpc: _v, ...extra } = opts.envelope ?? {};
      const msg: Obj = this.envelope({ ...extra, id, method });
      if (params !== undefined) msg.params = params;
      this.send(msg, false);
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.closedWith) return;
    // Built in one go (same members, same order as envelope + params): notifications are
    // the hot path of event streaming.
    const v = this.opts.writeVersion;
    const msg =
      params === undefined ? (v ? { jsonrpc: "2.0", method } : { method }) : v ? { jsonrpc: "2.0", method, params } : { method, params };
    this.send(msg, false);
  }

  /**
   * A notification whose params are already JSON text (an object, no big string): the
   * message is written around it, byte for byte what notify would write.
   */
  notifyJson(method: string, paramsJson: string): void {
    if (this.closedWith) return;
    this.opts.sendLine(`${this.opts.writeVersion ? '{"jsonrpc":"2.0","method":' : '{"method":'}${JSON.stringify(method)},"params":${paramsJson}}`);
  }

  /** `raw`: the message holds a RawJson id to write verbatim. */
  private send(msg: unknown, raw: boolean): void {
    if (this.opts.sendMessage) this.opts.sendMessage(msg, raw);
    else this.opts.sendLine(serialize(msg, raw));
  }

  /** No more answers will come: every pending request rejects with `error`, and so do later ones. */
  close(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) {
      p.cleanup();
      p.reject(error);
    }
  }
}
