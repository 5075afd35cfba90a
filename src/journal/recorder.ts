// `a4aa serve --record DIR` (R-REC-1, R-REC-2): one transcript per session, written line
// by line with a synchronous write (a sidecar killed at any point leaves whole lines), mode
// 0600, every secret redacted. The host side is tapped on the server's one peer, the
// agent side on every process the session's lane starts (supervise/taps).
import { closeSync, fchmodSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import type { Logger } from "../log.js";
import type { PipeProcess } from "../supervise/pipe-process.js";
import type { PtyProcess } from "../supervise/pty-process.js";
import type { ProcessTap, TappedCommand } from "../supervise/taps.js";
import { secrets, type Redactor } from "./redact.js";
import { TRANSCRIPT_VERSION, type TranscriptDir, type TranscriptEntry, type TranscriptHeader } from "./transcript.js";

export class Transcript implements ProcessTap {
  private fd: number | null;
  private readonly start = Date.now();
  private processes = 0;

  constructor(
    readonly file: string,
    header: Omit<TranscriptHeader, "transcript" | "version" | "startedAt">,
    private readonly redactor: Redactor,
    private readonly logger: Logger,
  ) {
    // wx: never append to (or follow a link to) someone else's file.
    this.fd = openSync(file, "wx", 0o600);
    fchmodSync(this.fd, 0o600);
    this.writeLine({ transcript: "a4aa", version: TRANSCRIPT_VERSION, startedAt: new Date(this.start).toISOString(), ...header });
  }

  /** Milliseconds since the transcript started. */
  now(): number {
    return Date.now() - this.start;
  }

  /** One entry: a JSON-object line is kept as `msg`, anything else as `line`. */
  entry(dir: TranscriptDir, text: string, p?: number, t = this.now()): void {
    const e: TranscriptEntry = { t, dir };
    if (p !== undefined) e.p = p;
    const msg = text.charCodeAt(0) === 123 ? tryParse(text) : undefined;
    if (msg !== undefined) e.msg = msg;
    else e.line = text;
    this.writeLine(e);
  }

  message(dir: TranscriptDir, msg: unknown, p?: number, t = this.now()): void {
    this.writeLine(p === undefined ? { t, dir, msg } : { t, dir, msg, p });
  }

  private writeLine(value: unknown): void {
    if (this.fd === null) return;
    try {
      writeSync(this.fd, JSON.stringify(this.redactor.redactValue(value)) + "\n");
    } catch (e) {
      this.logger.error(`writing the transcript ${this.file} failed (${(e as Error).message}); recording of this session stops`);
      this.close();
    }
  }

  started(proc: PipeProcess | PtyProcess, cmd: TappedCommand): void {
    const p = ++this.processes;
    this.message("agentStart", { name: cmd.name, program: cmd.program, args: cmd.args, pid: proc.pid, pty: !("stdout" in proc) }, p);
    if ("stdout" in proc) {
      tapWritable(proc.stdin, lineSplitter((l) => this.entry("agentIn", l, p)));
      tapReadable(proc.stdout, lineSplitter((l) => this.entry("agentOut", l, p)));
      proc.onStderrLine((l) => this.entry("agentErr", l, p));
    } else {
      proc.onData((d) => this.writeLine({ t: this.now(), dir: "agentPty", line: d, p }));
    }
    void proc.exited.then((e) => this.message("agentExit", e, p));
  }

  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    try {
      closeSync(fd);
    } catch {
      // already gone
    }
  }
}

/** The sidecar's recording: routes host lines to their session's transcript. */
export class Recording {
  private readonly transcripts = new Map<string, Transcript>();
  /** Host request ids (their JSON text) → session id, to place the responses. */
  private readonly hostRequests = new Map<string, string>();
  /** Our permission/request ids → session id, to place the host's answers. */
  private readonly ourRequests = new Map<string, string>();
  /** session/open requests not yet answered, by id. */
  private readonly pendingOpens = new Map<string, { t: number; msg: unknown }>();
  private readonly epoch = Date.now();

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    private readonly redactor: Redactor = secrets,
  ) {}

  /** Creates the session's transcript (spec and options are redacted like everything else). */
  open(sessionId: string, spec: unknown, options: unknown): Transcript {
    const t = new Transcript(path.join(this.dir, `${sessionId}.jsonl`), { sessionId, spec, options }, this.redactor, this.logger);
    this.transcripts.set(sessionId, t);
    this.logger.info(`recording to ${t.file}`, sessionId);
    return t;
  }

  close(sessionId: string): void {
    this.transcripts.get(sessionId)?.close();
    this.transcripts.delete(sessionId);
  }

  /** The host tap: every line of the host link, both ways. */
  readonly hostLine = (dir: "in" | "out", text: string): void => {
    if (this.transcripts.size === 0 && this.pendingOpens.size === 0 && !text.includes('"session/open"')) return;
    const value = tryParse(text);
    for (const m of Array.isArray(value) ? value : [value]) this.hostMessage(dir, m);
  };

  private hostMessage(dir: "in" | "out", m: unknown): void {
    if (!m || typeof m !== "object") return;
    const msg = m as { id?: unknown; method?: unknown; params?: { sessionId?: unknown }; result?: { sessionId?: unknown } };
    const idKey = msg.id === undefined ? undefined : JSON.stringify(msg.id);
    const hostDir: TranscriptDir = dir === "in" ? "hostIn" : "hostOut";
    if (typeof msg.method === "string") {
      if (dir === "in" && msg.method === "session/open" && idKey) {
        this.pendingOpens.set(idKey, { t: Date.now() - this.epoch, msg });
        return;
      }
      const sid = typeof msg.params?.sessionId === "string" ? msg.params.sessionId : undefined;
      if (!sid) return;
      if (idKey) (dir === "in" ? this.hostRequests : this.ourRequests).set(idKey, sid);
      this.transcripts.get(sid)?.message(hostDir, msg);
      return;
    }
    if (!idKey) return;
    // A response: to a host request (out) or to one of ours (in).
    const open = dir === "out" ? this.pendingOpens.get(idKey) : undefined;
    if (open) {
      this.pendingOpens.delete(idKey);
      const sid = typeof msg.result?.sessionId === "string" ? msg.result.sessionId : undefined;
      const tr = sid ? this.transcripts.get(sid) : undefined;
      if (tr) {
        tr.message("hostIn", open.msg, undefined, Math.max(0, tr.now() - (Date.now() - this.epoch - open.t)));
        tr.message("hostOut", msg);
      }
      return;
    }
    const map = dir === "out" ? this.hostRequests : this.ourRequests;
    const sid = map.get(idKey);
    if (sid === undefined) return;
    map.delete(idKey);
    this.transcripts.get(sid)?.message(hostDir, msg);
  }

  closeAll(): void {
    for (const id of [...this.transcripts.keys()]) this.close(id);
  }
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Calls `onLine` with each complete line of the chunks fed to it (the rest at `end`). */
function lineSplitter(onLine: (line: string) => void): { push(chunk: Buffer | string): void; end(): void } {
  const decoder = new StringDecoder("utf8");
  let partial = "";
  return {
    push(chunk) {
      let s = partial + (typeof chunk === "string" ? chunk : decoder.write(chunk));
      let nl: number;
      while ((nl = s.indexOf("\n")) !== -1) {
        const line = s.slice(0, nl).replace(/\r$/, "");
        if (line.trim()) onLine(line);
        s = s.slice(nl + 1);
      }
      partial = s;
    },
    end() {
      const rest = partial + decoder.end();
      partial = "";
      if (rest.trim()) onLine(rest);
    },
  };
}

/** Sees what is written to a child's stdin, without changing how it is written. */
function tapWritable(w: NodeJS.WritableStream, sink: ReturnType<typeof lineSplitter>): void {
  const write = w.write.bind(w) as (...a: unknown[]) => boolean;
  const end = w.end.bind(w) as (...a: unknown[]) => unknown;
  const take = (chunk: unknown) => {
    if (typeof chunk === "string" || Buffer.isBuffer(chunk)) sink.push(chunk);
    else if (chunk instanceof Uint8Array) sink.push(Buffer.from(chunk));
  };
  w.write = ((chunk: unknown, ...rest: unknown[]) => {
    take(chunk);
    return write(chunk, ...rest);
  }) as typeof w.write;
  w.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== "function") take(chunk);
    sink.end();
    return end(chunk, ...rest);
  }) as typeof w.end;
}

/**
 * Sees a child's stdout. The tap's 'data' listener is added together with the lane's first
 * one, so the stream does not start flowing before the lane reads it.
 */
function tapReadable(r: NodeJS.ReadableStream, sink: ReturnType<typeof lineSplitter>): void {
  const attach = () => {
    r.on("data", (c: Buffer | string) => sink.push(c));
    r.once("end", () => sink.end());
  };
  if (r.listenerCount("data") > 0) return attach();
  const onNew = (event: string | symbol) => {
    if (event !== "data") return;
    r.off("newListener", onNew);
    attach();
  };
  r.on("newListener", onNew);
}
