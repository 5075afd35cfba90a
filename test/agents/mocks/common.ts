// The shared core of the model-API mocks: a loopback HTTP server, a scripted queue of
// replies, request recording (secrets redacted) and an SSE writer that stops cleanly when
// the client hangs up. Node built-ins only.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One scripted answer to a "main" model request (the agent's conversation turn). */
export type Reply = TextReply | ThinkingReply | ToolReply | SlowReply | ErrorReply | CustomReply;

interface ReplyCommon {
  /** Stays at the head of the queue: every following main request gets it too (for retries). */
  sticky?: boolean;
}
/** Plain assistant text, streamed in chunks of `chunkSize` characters (default: 3 chunks). */
export interface TextReply extends ReplyCommon {
  type: "text";
  text: string;
  chunkSize?: number;
}
/** Reasoning / thinking first, then the text. */
export interface ThinkingReply extends ReplyCommon {
  type: "thinking";
  thinking: string;
  text: string;
}
/**
 * A tool call. With `command` it calls the agent's shell tool (whatever the request offers:
 * Bash, exec_command, shell, run_shell_command, bash…); with `name` + `args` any tool as is.
 * The follow-up request carries the tool's result: queue the final text after it.
 */
export interface ToolReply extends ReplyCommon {
  type: "tool";
  command?: string;
  name?: string;
  args?: Record<string, unknown>;
  /** Call id; default `call_mock_<n>` (Anthropic: `toolu_mock_<n>`). */
  id?: string;
  /** Optional text said before the call. */
  text?: string;
}
/** Text chunks sent `delayMs` apart (for cancel tests); stops as soon as the client disconnects. */
export interface SlowReply extends ReplyCommon {
  type: "slow";
  chunks: string[];
  delayMs: number;
  /** Delay before the first byte of the response (headers), default 0. */
  firstByteDelayMs?: number;
}
/** An HTTP error with the API's own error JSON. */
export interface ErrorReply extends ReplyCommon {
  type: "error";
  status: number;
  message?: string;
  /** API-specific error type/status string (default derived from `status`). */
  errorType?: string;
  /** Sets a `retry-after` header (seconds). */
  retryAfter?: number;
}
/** Escape hatch: write the response yourself. */
export interface CustomReply extends ReplyCommon {
  type: "custom";
  handle(req: RecordedRequest, res: http.ServerResponse): void | Promise<void>;
}

export const reply = {
  text: (text: string, chunkSize?: number): TextReply => ({ type: "text", text, chunkSize }),
  thinking: (thinking: string, text: string): ThinkingReply => ({ type: "thinking", thinking, text }),
  shell: (command: string, opts: { id?: string; text?: string } = {}): ToolReply => ({ type: "tool", command, ...opts }),
  tool: (name: string, args: Record<string, unknown>, opts: { id?: string; text?: string } = {}): ToolReply => ({
    type: "tool",
    name,
    args,
    ...opts,
  }),
  slow: (chunks: string[], delayMs: number, firstByteDelayMs?: number): SlowReply => ({
    type: "slow",
    chunks,
    delayMs,
    firstByteDelayMs,
  }),
  error: (status: number, message?: string, errorType?: string): ErrorReply => ({ type: "error", status, message, errorType }),
  /** The two replies of a tool turn: the shell call, then (on the follow-up) the final text. */
  shellTurn: (command: string, finalText: string): Reply[] => [reply.shell(command), reply.text(finalText)],
};

/** An image the request carries for the model (a prompt's image, or a tool's). */
export interface ImagePart {
  mimeType: string;
  /** The image's bytes in base64, as sent. */
  data: string;
  /** Decoded size in bytes. */
  bytes: number;
}

/** Finds the image parts in a request body (each mock knows its API's form). */
export type ImageFinder = (body: any) => ImagePart[];

export function imagePart(mimeType: string, data: string): ImagePart {
  return { mimeType, data, bytes: Buffer.from(data, "base64").length };
}

/** `data:<mime>;base64,<data>` as an image part (other URLs: undefined). */
export function imageFromDataUrl(url: unknown): ImagePart | undefined {
  const m = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  return m ? imagePart(m[1], m[2]) : undefined;
}

/** A request as the mock received it. Secret headers are replaced by `<redacted>`. */
export interface RecordedRequest {
  /** Order of arrival, from 0. */
  seq: number;
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** sha256 (hex) of each secret header's value as received, bearer scheme stripped: a test
   * compares it with the digest of the key it expects, without the mock keeping the key. */
  secretDigests: Record<string, string>;
  /** Parsed JSON body, or the raw text when it is not JSON, or null when empty. */
  body: any;
  /** The images the body carries, in order (the whole conversation sent, history included). */
  images: ImagePart[];
  /** "main": served from the script; "aux": an auxiliary request (title, router…); "meta": probes, models, tokens. */
  role: "main" | "aux" | "meta";
  /** The reply type served (main requests), or a short description. */
  served?: string;
  /** Set when the client closed the connection before the response ended. */
  clientAborted?: boolean;
  /** Set once the response has ended (or was aborted). */
  done?: boolean;
  at: number;
}

export type Script = Reply[] | ((req: RecordedRequest, mainIndex: number) => Reply | undefined);

export interface MockOptions {
  /** Replies to main requests, in order; or a function of the request. */
  script?: Script;
  /** Served when the script has nothing (default: text "ok"). */
  fallback?: Reply;
  /** Overrides the mock's own guess of which requests are main conversation turns. */
  isMain?: (req: RecordedRequest) => boolean;
  /** Logs every request to stderr (also when A4AA_MOCK_DEBUG=1). */
  debug?: boolean;
}

export interface ModelMock {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Only the main (scripted) requests. */
  mainRequests(): RecordedRequest[];
  /** Appends replies to the script queue (only when the script is a queue). */
  push(...replies: Reply[]): void;
  /** Replies still queued. */
  pending(): number;
  /** Resolves with the first recorded request (past or future) matching `pred`. */
  waitFor(pred: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

const SECRET_HEADERS = /^(authorization|x-api-key|x-goog-api-key|api-key|cookie|proxy-authorization|openai-api-key)$/i;

export function secretDigests(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (typeof v === "string" && SECRET_HEADERS.test(k)) out[k] = createHash("sha256").update(v.replace(/^Bearer /i, "")).digest("hex");
  }
  return out;
}

export function redactHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k] = SECRET_HEADERS.test(k) ? "<redacted>" : Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/** Handles one request; `ctx.next()` takes the next scripted reply for a main request. */
export type Handler = (req: RecordedRequest, res: http.ServerResponse, ctx: HandlerContext) => void | Promise<void>;

export interface HandlerContext {
  /** Marks the request as main and takes its scripted reply (or the fallback). */
  next(): Reply;
  /** The mock's `isMain` override, when given. */
  isMain?: (req: RecordedRequest) => boolean;
  /** A per-mock counter, for ids. */
  counter(): number;
}

export async function startMockServer(name: string, opts: MockOptions, handler: Handler, findImages: ImageFinder = () => []): Promise<ModelMock> {
  const requests: RecordedRequest[] = [];
  const waiters: { pred: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void }[] = [];
  const queue: Reply[] = Array.isArray(opts.script) ? [...opts.script] : [];
  const fn = typeof opts.script === "function" ? opts.script : undefined;
  const fallback = opts.fallback ?? reply.text("ok");
  const debug = opts.debug || process.env.A4AA_MOCK_DEBUG === "1";
  let mainCount = 0;
  let ids = 0;
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      if (raw.length) {
        try {
          body = JSON.parse(raw);
        } catch {
          body = raw;
        }
      }
      const u = new URL(req.url ?? "/", "http://127.0.0.1");
      const rec: RecordedRequest = {
        seq: requests.length,
        method: req.method ?? "GET",
        path: u.pathname,
        query: Object.fromEntries(u.searchParams),
        headers: redactHeaders(req.headers),
        secretDigests: secretDigests(req.headers),
        body,
        images: [],
        role: "meta",
        at: Date.now(),
      };
      try {
        rec.images = body && typeof body === "object" ? findImages(body) : [];
      } catch {
        rec.images = [];
      }
      requests.push(rec);
      res.on("close", () => {
        if (!res.writableFinished) rec.clientAborted = true;
        rec.done = true;
      });
      const ctx: HandlerContext = {
        isMain: opts.isMain,
        counter: () => ++ids,
        next: () => {
          rec.role = "main";
          const i = mainCount++;
          let r: Reply | undefined;
          if (fn) r = fn(rec, i);
          else if (queue.length) {
            r = queue[0];
            if (!r.sticky) queue.shift();
          }
          r ??= fallback;
          rec.served = r.type;
          return r;
        },
      };
      Promise.resolve()
        .then(() => handler(rec, res, ctx))
        .catch((err: unknown) => {
          if (debug) process.stderr.write(`[${name}] handler error: ${String(err)}\n`);
          if (!res.headersSent) {
            res.writeHead(500, { "content-type": "application/json" });
            res.end(JSON.stringify({ error: { message: `mock handler error: ${String(err)}` } }));
          } else res.destroy();
        })
        .finally(() => {
          if (debug) {
            const b = JSON.stringify(rec.body ?? null);
            process.stderr.write(
              `[${name}] #${rec.seq} ${rec.method} ${rec.path} role=${rec.role} served=${rec.served ?? "-"} body=${b.length > 300 ? b.slice(0, 300) + "…" : b}\n`,
            );
          }
          for (let i = waiters.length - 1; i >= 0; i--) {
            if (waiters[i].pred(rec)) {
              waiters[i].resolve(rec);
              waiters.splice(i, 1);
            }
          }
        });
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    mainRequests: () => requests.filter((r) => r.role === "main"),
    push: (...r: Reply[]) => {
      if (fn) throw new Error(`${name}: push() needs a queue script, not a function`);
      queue.push(...r);
    },
    pending: () => queue.length,
    waitFor: (pred, timeoutMs = 30_000) => {
      const hit = requests.find((r) => r.done !== undefined && pred(r));
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const w = {
          pred,
          resolve: (r: RecordedRequest) => {
            clearTimeout(t);
            resolve(r);
          },
        };
        const t = setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`${name}: no matching request within ${timeoutMs} ms`));
        }, timeoutMs);
        t.unref();
        waiters.push(w);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closed = true;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An SSE (or NDJSON-ish) response writer that notices a client hang-up. */
export class StreamWriter {
  closed = false;
  private wakers = new Set<() => void>();
  constructor(
    readonly res: http.ServerResponse,
    status = 200,
    headers: Record<string, string> = { "content-type": "text/event-stream; charset=utf-8" },
  ) {
    res.writeHead(status, { "cache-control": "no-cache", connection: "keep-alive", ...headers });
    res.flushHeaders();
    res.on("close", () => {
      this.closed = true;
      for (const w of this.wakers) w();
      this.wakers.clear();
    });
  }
  /** `event: name` (when given) and `data: <json>`. */
  event(name: string | null, data: unknown): void {
    if (this.closed) return;
    const d = typeof data === "string" ? data : JSON.stringify(data);
    this.res.write((name ? `event: ${name}\n` : "") + `data: ${d}\n\n`);
  }
  write(text: string): void {
    if (!this.closed) this.res.write(text);
  }
  /** Waits `ms`, or less if the client hangs up; resolves false if it did. */
  sleep(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.wakers.delete(done);
        resolve(!this.closed);
      };
      const t = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }
  end(): void {
    if (!this.closed) this.res.end();
  }
}

/** Waits `ms` unless the response closes first (before headers were sent). */
export function delayUnlessClosed(res: http.ServerResponse, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(t);
      resolve(false);
    };
    const t = setTimeout(() => {
      res.off("close", onClose);
      resolve(true);
    }, ms);
    res.once("close", onClose);
  });
}

/** A main turn offers tools; auxiliary requests (session titles, JSON checks…) offer none. */
export function offersTools(req: RecordedRequest): boolean {
  const tools = req.body?.tools;
  return Array.isArray(tools) && tools.length > 0;
}

/** How an API answers an error: its type names by HTTP status and its JSON body. */
export interface ApiErrors {
  types: Record<number, string>;
  fallback: string;
  body(r: ErrorReply, message: string, type: string): unknown;
  headers?(r: ErrorReply, ctx: HandlerContext): Record<string, string>;
}

/**
 * The reply to a request: the script's next one for a main request (the agent's turn, as
 * the test's isMain or the mock's own rule says), else `aux` (a title, a summary), marked so.
 */
export function replyFor(req: RecordedRequest, ctx: HandlerContext, isMain: (req: RecordedRequest) => boolean, aux: (req: RecordedRequest) => Reply = auxText): Reply {
  if ((ctx.isMain ?? isMain)(req)) return ctx.next();
  req.role = "aux";
  return aux(req);
}

/** The usual auxiliary answer: "Mock reply" as text. */
export function auxText(req: RecordedRequest, text = "Mock reply"): Reply {
  req.served = "aux-text";
  return { type: "text", text };
}

/** What an OpenAI-style mock answers besides its API: `GET …/models` (these ids), a probe of `/`, else 404. */
export function serveOpenAiRest(req: RecordedRequest, res: http.ServerResponse, modelIds: string[]): void {
  const p = req.path.replace(/\/+$/, "") || "/";
  if (req.method === "GET" && p.endsWith("/models")) {
    req.served = "models";
    sendJson(res, 200, { object: "list", data: modelIds.map((id) => ({ id, object: "model", created: 1735689600, owned_by: "mock" })) });
    return;
  }
  probeOr404(req, res, (message) => ({ error: { message, type: "invalid_request_error", param: null, code: null } }));
}

/** The end of every mock's routes: a probe of `/` (HEAD, GET) is 200, anything else 404 with the API's error body. */
export function probeOr404(req: RecordedRequest, res: http.ServerResponse, notFound: (message: string) => unknown): void {
  const p = req.path.replace(/\/+$/, "") || "/";
  if (req.method === "HEAD" || (req.method === "GET" && p === "/")) {
    req.served = "probe";
    res.writeHead(200);
    res.end();
    return;
  }
  req.served = "404";
  sendJson(res, 404, notFound(`mock: no route for ${req.method} ${req.path}`));
}

/**
 * What every mock does before a reply of its own form: a custom reply writes itself, an
 * error goes out as the API's error JSON (with retry-after when asked), a slow reply waits
 * for its first byte. True when the response is done (or the client went away).
 */
export async function answeredCommon(r: Reply, req: RecordedRequest, res: http.ServerResponse, ctx: HandlerContext, errors: ApiErrors): Promise<boolean> {
  if (r.type === "custom") {
    await r.handle(req, res);
    return true;
  }
  if (r.type === "error") {
    const headers: Record<string, string> = { ...errors.headers?.(r, ctx) };
    if (r.retryAfter !== undefined) headers["retry-after"] = String(r.retryAfter);
    sendJson(res, r.status, errors.body(r, r.message ?? "Mock error", r.errorType ?? errors.types[r.status] ?? errors.fallback), headers);
    return true;
  }
  if (r.type === "slow" && r.firstByteDelayMs) return !(await delayUnlessClosed(res, r.firstByteDelayMs));
  return false;
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const s = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(s)), ...headers });
  res.end(s);
}

/** Splits text into pieces: `chunkSize` characters each, or about three pieces by default. */
export function chunkText(text: string, chunkSize?: number): string[] {
  const cps = Array.from(text);
  const size = chunkSize && chunkSize > 0 ? chunkSize : Math.max(1, Math.ceil(cps.length / 3));
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

/** A rough token count for usage fields. */
export function approxTokens(x: unknown): number {
  const s = typeof x === "string" ? x : JSON.stringify(x ?? "");
  return Math.max(1, Math.ceil(s.length / 4));
}

/** Everything the text of a JSON value holds, concatenated (for "does the request carry X"). */
export function textOf(x: unknown): string {
  return JSON.stringify(x ?? "");
}

export function statusText(status: number): string {
  return http.STATUS_CODES[status] ?? "Error";
}

/** A minimal JSON value satisfying a (JSON or OpenAPI-style) schema; prefers "user"/"flash"-like safe choices. */
export function valueForSchema(schema: any, key = ""): unknown {
  if (!schema || typeof schema !== "object") return null;
  if (Array.isArray(schema.enum) && schema.enum.length) {
    const prefer = ["user", "flash", "false", "no", "none"];
    return schema.enum.find((e: unknown) => prefer.includes(String(e).toLowerCase())) ?? schema.enum[0];
  }
  if (schema.const !== undefined) return schema.const;
  const anyOf = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(anyOf) && anyOf.length) return valueForSchema(anyOf[0], key);
  const type = String(
    Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? (schema.properties ? "object" : "string")),
  ).toLowerCase();
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries<any>(schema.properties ?? {})) out[k] = valueForSchema(v, k);
      return out;
    }
    case "array":
      return [];
    case "boolean":
      return false;
    case "integer":
    case "number":
      return 0;
    default:
      return key === "reasoning" ? "Mock reasoning." : "mock";
  }
}

/**
 * Arguments for a shell tool whose parameter schema is `schema`: the command goes into the
 * first of `command`/`cmd` the schema has (as a string, or `["bash","-lc",cmd]` for an array),
 * `description` gets a short text, and every other required parameter a minimal value.
 */
export function shellArgs(schema: any, command: string): Record<string, unknown> {
  const props: Record<string, any> = schema?.properties ?? {};
  const required: string[] = Array.isArray(schema?.required) ? schema.required : [];
  const out: Record<string, unknown> = {};
  const key = ["command", "cmd"].find((k) => k in props) ?? "command";
  const t = props[key]?.type;
  out[key] = t === "array" ? ["bash", "-lc", command] : command;
  if ("description" in props || !Object.keys(props).length) out.description = "Run a shell command";
  for (const k of required) if (!(k in out)) out[k] = valueForSchema(props[k], k);
  return out;
}
