// The host side of a4aa.v1, typed by the generated method table and checked by the
// generated validators: every request the suite sends (params), every result, error,
// `session/event` and `permission/request` it receives. Any invalid message becomes a
// violation, and a check with a violation fails. Kept thin so that it can be swapped for
// clients/ts once that exists.
import { METHODS, type HostToSidecarMethod, type MethodName, type ParamsOf, type ResultOf } from "../../../generated/ts/methods.js";
import { paramsValidators, resultValidators } from "../../../generated/ts/method-validators.js";
import * as V from "../../../generated/ts/validators.js";
import type { AgentEvent, AgentSpec, ErrorData, OpenResult, PermissionRequest, SessionOpenParams, TurnOutcome } from "../../../generated/ts/types.js";
import { HostMethods, type CallOptions } from "../../../clients/ts/generated.js";
import { Wire, truncate, type Channel } from "./wire.js";

/**
 * The generated typed stubs of clients/ts (`ping`, `sessionOpen`, …) on the suite's own
 * transport: its runtime owns its process and I/O, and the suite must see, record and
 * validate every line both ways.
 */
class Stubs extends HostMethods {
  constructor(private readonly host: Host) {
    super();
  }
  protected request(method: string, params: unknown, _opts?: CallOptions): Promise<unknown> {
    return this.host.ok(method as HostToSidecarMethod, params as never);
  }
}

export interface RpcError {
  code: number;
  message: string;
  data?: ErrorData;
}

export interface Reply<R> {
  id: unknown;
  result?: R;
  error?: RpcError;
  /** position among the messages received */
  seq: number;
}

export interface Received {
  seq: number;
  msg: any;
}

export type PermissionAnswer =
  | { result: unknown; unchecked?: boolean }
  | { error: { code: number; message: string } }
  | "ignore";

export class CheckFailure extends Error {}

/** The JSON-RPC code each ErrorCode goes with (the schema's ErrorCode description). */
export function rpcCodeOf(code: string): number {
  switch (code) {
    case "invalid_params":
      return -32602;
    case "unknown_session":
      return -32001;
    case "frame_too_large":
    case "invalid_request":
      return -32600;
    case "method_not_found":
      return -32601;
    case "internal_error":
      return -32603;
    case "parse_error":
    case "invalid_utf8":
      return -32700;
    default:
      return -32000;
  }
}

/** JSON with object keys sorted: how ids are compared ("equal after re-serialisation"). */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "undefined";
}

function ajvErrors(v: { errors?: { instancePath: string; message?: string }[] | null }): string {
  return (v.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
}

export interface HostOptions {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Builds a Host's channel given where its lines and stderr news go (harness/remote.ts). */
export type ChannelFactory = (onLine: (line: string) => void, onStderr: () => void) => Channel;

export class Host {
  readonly wire: Channel;
  readonly received: Received[] = [];
  readonly violations: string[] = [];
  /** Typed calls through the generated client stubs; a JSON-RPC error fails the check. */
  readonly api: HostMethods = new Stubs(this);
  onPermission: (params: PermissionRequest) => PermissionAnswer | Promise<PermissionAnswer> = () => "ignore";
  private nextId = 1;
  private readonly pending = new Map<string, { method: MethodName | string; resolve: (r: Reply<any>) => void; reject: (e: Error) => void }>();
  private readonly waiters = new Set<() => void>();
  private batchesSent = 0;

  constructor(opts: HostOptions | ChannelFactory) {
    const onLine = (l: string) => this.onLine(l);
    const onStderr = () => this.notifyWaiters();
    this.wire = typeof opts === "function" ? opts(onLine, onStderr) : new Wire({ ...opts, onLine, onStderr });
    void this.wire.exited.then((x) => {
      // Whatever is still unanswered never will be: fail it now rather than at the time bound.
      for (const p of this.pending.values()) p.reject(new CheckFailure(`the implementation exited (code ${x.code}, signal ${x.signal}) without answering ${p.method}`));
      this.pending.clear();
      this.notifyWaiters();
    });
  }

  get stderr(): string {
    return this.wire.stderr;
  }

  violation(text: string): void {
    this.violations.push(text);
    this.wire.note(`VIOLATION: ${text}`);
  }

  private notifyWaiters(): void {
    for (const w of [...this.waiters]) w();
  }

  private onLine(line: string): void {
    if (line.trim() === "") {
      this.violation("R-FRAME-1: a blank line on stdout");
      return;
    }
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      this.violation(`R-FRAME-1: a stdout line that is not JSON: ${truncate(line, 120)}`);
      return;
    }
    const seq = this.received.length;
    this.received.push({ seq, msg });
    if (Array.isArray(msg)) {
      if (!this.batchesSent) this.violation("a batch answer although the host sent no batch");
      for (const m of msg) this.checkResponse(m, seq, true);
    } else this.onMessage(msg, seq);
    this.notifyWaiters();
  }

  private onMessage(m: any, seq: number): void {
    if (!m || typeof m !== "object") return this.violation(`R-FRAME-1: a stdout line that is not a JSON-RPC message: ${truncate(JSON.stringify(m), 120)}`);
    if (m.jsonrpc !== "2.0") this.violation(`a message without "jsonrpc": "2.0": ${truncate(JSON.stringify(m), 120)}`);
    if (typeof m.method === "string") {
      const info = (METHODS as Record<string, (typeof METHODS)[MethodName]>)[m.method];
      if (!info || info.direction !== "sidecarToHost") {
        this.violation(`the sidecar sent ${m.method}, which is not a sidecar→host method`);
        if ("id" in m) void this.wire.writeLine(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } }));
        return;
      }
      if (info.notification === ("id" in m)) this.violation(`${m.method} sent ${info.notification ? "with" : "without"} an id`);
      const validate = paramsValidators[m.method as MethodName] as (d: unknown) => boolean;
      if (!validate(m.params)) this.violation(`${m.method} params fail ${info.paramsType}: ${ajvErrors(validate as never)}: ${truncate(JSON.stringify(m.params), 300)}`);
      if (m.method === "permission/request" && "id" in m) void this.answerPermission(m);
      return;
    }
    this.checkResponse(m, seq, false);
  }

  private checkResponse(m: any, seq: number, inBatch: boolean): void {
    if (!m || typeof m !== "object" || Array.isArray(m)) return this.violation(`not a response: ${truncate(JSON.stringify(m), 120)}`);
    if (inBatch && m.jsonrpc !== "2.0") this.violation(`a batch member without "jsonrpc": "2.0"`);
    if (!("id" in m)) return this.violation(`a response without an id: ${truncate(JSON.stringify(m), 200)}`);
    if (("result" in m) === ("error" in m)) return this.violation(`a response must hold exactly one of result and error: ${truncate(JSON.stringify(m), 200)}`);
    if (m.error) this.checkError(m.error);
    const key = canonical(m.id);
    const p = this.pending.get(key);
    if (!p) {
      if (m.id === null && m.error) return; // a framing error: nothing of ours to settle
      if (!inBatch) this.violation(`a response to id ${truncate(key, 100)}, which the host did not send or which was already answered`);
      return;
    }
    this.pending.delete(key);
    if ("result" in m) {
      const v = (resultValidators as Record<string, (d: unknown) => boolean>)[p.method];
      if (v && !v(m.result)) this.violation(`the result of ${p.method} fails ${(METHODS as any)[p.method].resultType}: ${ajvErrors(v as never)}: ${truncate(JSON.stringify(m.result), 300)}`);
    }
    p.resolve({ id: m.id, result: m.result, error: m.error, seq });
  }

  private checkError(e: any): void {
    if (!e || typeof e !== "object" || !Number.isInteger(e.code) || typeof e.message !== "string") {
      return this.violation(`a malformed error object: ${truncate(JSON.stringify(e), 200)}`);
    }
    if (e.data === undefined) {
      if (e.code === -32000 || e.code === -32001 || e.code === -32602) this.violation(`error ${e.code} without ErrorData: ${truncate(JSON.stringify(e), 200)}`);
      return;
    }
    if (!V.validateErrorData(e.data)) return this.violation(`error data fails ErrorData: ${ajvErrors(V.validateErrorData)}: ${truncate(JSON.stringify(e.data), 300)}`);
    const want = rpcCodeOf(e.data.code);
    if (want !== e.code) this.violation(`error data.code ${e.data.code} goes with JSON-RPC code ${want}, not ${e.code}`);
  }

  private async answerPermission(m: any): Promise<void> {
    let a: PermissionAnswer;
    try {
      a = await this.onPermission(m.params);
    } catch (e) {
      a = { error: { code: -32603, message: String(e) } };
    }
    if (a === "ignore") return;
    if ("result" in a && !a.unchecked && !V.validatePermissionResponse(a.result)) {
      this.violation(`the suite's own permission answer fails PermissionResponse (a bug in the check)`);
    }
    const { unchecked: _u, ...body } = a as { unchecked?: boolean };
    if (!this.wire.exit) await this.wire.writeLine(JSON.stringify({ jsonrpc: "2.0", id: m.id, ...body }));
  }

  /** Sends a typed request; resolves with the whole reply (result or error). */
  request<M extends HostToSidecarMethod>(method: M, params: ParamsOf<M>, opts: { id?: unknown; unchecked?: boolean } = {}): Promise<Reply<ResultOf<M>>> {
    if (!opts.unchecked) {
      const v = paramsValidators[method] as (d: unknown) => boolean;
      if (!v(params)) throw new CheckFailure(`the check built invalid ${method} params: ${ajvErrors(v as never)}`);
    }
    return this.send(method, params, opts.id);
  }

  /** Sends anything as a request (deliberately invalid params, unknown methods). */
  send(method: string, params: unknown, id: unknown = this.nextId++): Promise<Reply<any>> {
    const p = this.expectReply(id, method);
    void this.wire.writeLine(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }));
    return p;
  }

  /** Registers a request the check writes itself (raw lines); resolves with its reply. */
  expectReply(id: unknown, method: string): Promise<Reply<any>> {
    const p = new Promise<Reply<any>>((resolve, reject) => this.pending.set(canonical(id), { method, resolve, reject }));
    p.catch(() => undefined);
    return p;
  }

  /** Expects a result; a JSON-RPC error fails the check. */
  async ok<M extends HostToSidecarMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    const r = await this.request(method, params);
    if (r.error) throw new CheckFailure(`${method} failed: ${r.error.code} ${r.error.data?.code ?? ""} ${r.error.data?.detail ?? r.error.message}`);
    return r.result as ResultOf<M>;
  }

  /** Expects an error with `data.code` === code (when given); a result fails the check. */
  async fail<M extends HostToSidecarMethod>(method: M, params: ParamsOf<M>, code?: string, opts: { unchecked?: boolean } = {}): Promise<RpcError> {
    const r = await this.request(method, params, opts);
    if (!r.error) throw new CheckFailure(`${method} was expected to fail${code ? ` with ${code}` : ""} but answered ${truncate(JSON.stringify(r.result), 200)}`);
    if (code && r.error.data?.code !== code) throw new CheckFailure(`${method} failed with ${r.error.data?.code ?? r.error.code} (${r.error.data?.detail ?? r.error.message}), expected ${code}`);
    return r.error;
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.wire.writeLine(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  sendBatch(items: unknown[], expectIds: unknown[]): Promise<void> {
    this.batchesSent++;
    for (const id of expectIds) this.pending.set(canonical(id), { method: "ping", resolve: () => undefined, reject: () => undefined });
    return this.wire.writeLine(JSON.stringify(items));
  }

  open(spec: AgentSpec, extra: Omit<SessionOpenParams, "spec"> = {}): Promise<OpenResult> {
    return this.api.sessionOpen({ spec, ...extra });
  }

  prompt(sessionId: string, text: string): Promise<Reply<TurnOutcome>> {
    return this.request("session/prompt", { sessionId, text });
  }

  /** The session/event notifications received, optionally for one session. */
  events(sessionId?: string): AgentEvent[] {
    return this.eventsWithSeq(sessionId).map((e) => e.event);
  }

  eventsWithSeq(sessionId?: string): { seq: number; sessionId: string; event: AgentEvent }[] {
    const out: { seq: number; sessionId: string; event: AgentEvent }[] = [];
    for (const r of this.received) {
      const m = r.msg;
      if (m && m.method === "session/event" && m.params && (sessionId === undefined || m.params.sessionId === sessionId)) {
        out.push({ seq: r.seq, sessionId: m.params.sessionId, event: m.params.event });
      }
    }
    return out;
  }

  text(sessionId: string): string {
    return this.events(sessionId)
      .filter((e) => e.type === "messageChunk")
      .map((e) => (e as { text: string }).text)
      .join("");
  }

  permissionRequests(): PermissionRequest[] {
    return this.received.filter((r) => r.msg?.method === "permission/request").map((r) => r.msg.params);
  }

  /** Resolves when pred() holds; re-checked on every message, stderr chunk and exit. */
  waitFor(pred: () => boolean, timeoutMs = 10_000, what = "a condition"): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (pred()) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new CheckFailure(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Closes stdin and waits for the exit; SIGKILL (and a failure) after `timeoutMs`. */
  async end(timeoutMs = 20_000): Promise<number | null> {
    this.wire.endInput();
    return this.waitExit(timeoutMs, "after EOF");
  }

  async waitExit(timeoutMs: number, what: string): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([this.wire.exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), timeoutMs)))]);
    clearTimeout(timer);
    if (!r) {
      this.wire.destroy();
      throw new CheckFailure(`the implementation did not exit within ${timeoutMs} ms ${what}`);
    }
    return r.code;
  }
}
