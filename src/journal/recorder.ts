// `a4aa serve --record DIR` (R-REC-1, R-REC-2): one transcript per session, written line
// by line with a synchronous write (a sidecar killed at any point leaves whole lines), mode
// 0600, every secret redacted. The host side is tapped on the server's one peer; the agent
// side on every process the session's lane starts (supervise/taps): the lines the lane's
// own bounded reader and writer frame, its stderr lines and its PTY output — the recorder
// never splits or holds a stream itself (a line is at most the lane's line limit).
import { closeSync, constants, fchmodSync, openSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { Logger } from "../log.js";
import type { PipeProcess } from "../supervise/pipe-process.js";
import type { PtyProcess } from "../supervise/pty-process.js";
import type { LineTap, ProcessTap, TappedCommand } from "../supervise/taps.js";
import { nestsDeeperThan } from "../transport/depth.js";
import { secrets, type Redactor } from "./redact.js";
import { TRANSCRIPT_VERSION, type TranscriptDir, type TranscriptEntry, type TranscriptHeader } from "./transcript.js";

/** Lines this long are kept as text (`line`), not parsed and rebuilt as `msg`. */
const PARSE_BELOW = 1 << 20;
/** Fresh names tried when a transcript's name is taken. */
const NAME_TRIES = 16;

/**
 * Creates `dir/<name>.jsonl` (mode 0600) that did not exist: O_EXCL|O_NOFOLLOW, never
 * appending to or following a link to someone else's file. A name already taken (a file,
 * a link) gets a fresh one, `<name>-<random>.jsonl`.
 */
export function createTranscriptFile(dir: string, name: string): { fd: number; file: string } {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  for (let i = 0; ; i++) {
    const file = path.join(dir, i === 0 ? `${name}.jsonl` : `${name}-${randomBytes(4).toString("hex")}.jsonl`);
    try {
      return { fd: openSync(file, flags, 0o600), file };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code !== "EEXIST" && code !== "ELOOP") || i + 1 >= NAME_TRIES) throw e;
    }
  }
}

export class Transcript implements ProcessTap {
  private fd: number | null;
  readonly file: string;
  private readonly start = Date.now();
  private processes = 0;

  constructor(
    dir: string,
    header: Omit<TranscriptHeader, "transcript" | "version" | "startedAt">,
    private readonly redactor: Redactor,
    private readonly logger: Logger,
  ) {
    const { fd, file } = createTranscriptFile(dir, header.sessionId);
    this.fd = fd;
    this.file = file;
    fchmodSync(this.fd, 0o600);
    this.writeLine({ transcript: "a4aa", version: TRANSCRIPT_VERSION, startedAt: new Date(this.start).toISOString(), ...header });
  }

  /** Milliseconds since the transcript started. */
  now(): number {
    return Date.now() - this.start;
  }

  /**
   * One entry: a JSON-object line is kept as `msg`, anything else — and a line over 1 MiB or
   * nested too deep to rebuild safely — as `line` (its text, replayed as it is).
   */
  entry(dir: TranscriptDir, text: string, p?: number, t = this.now()): void {
    const e: TranscriptEntry = { t, dir };
    if (p !== undefined) e.p = p;
    const msg = text.charCodeAt(0) === 123 && text.length < PARSE_BELOW && !nestsDeeperThan(text) ? tryParse(text) : undefined;
    if (msg !== undefined) e.msg = msg;
    else e.line = text;
    this.writeLine(e);
  }

  message(dir: TranscriptDir, msg: unknown, p?: number, t = this.now()): void {
    this.writeLine(p === undefined ? { t, dir, msg } : { t, dir, msg, p });
  }

  private writeLine(value: unknown): void {
    if (this.fd === null) return;
    let json: string;
    try {
      json = JSON.stringify(this.redactor.redactValue(value));
    } catch (e) {
      this.logger.warn(`a transcript entry of ${this.file} could not be written (${(e as Error).message}); it is left out`);
      return;
    }
    this.writeRaw(json);
  }

  private writeRaw(json: string): void {
    if (this.fd === null) return;
    try {
      writeSync(this.fd, json + "\n");
    } catch (e) {
      this.logger.error(`writing the transcript ${this.file} failed (${(e as Error).message}); recording of this session stops`);
      this.close();
    }
  }

  started(proc: PipeProcess | PtyProcess, cmd: TappedCommand): LineTap | void {
    const p = ++this.processes;
    this.message("agentStart", { name: cmd.name, program: cmd.program, args: cmd.args, pid: proc.pid, pty: !("stdout" in proc) }, p);
    if ("stdout" in proc) {
      proc.onStderrLine((l) => this.entry("agentErr", l, p));
      // stdout read as text comes in pieces: a secret split across two is redacted all the same.
      const text = this.pieces("agentText", p);
      void proc.exited.then((e) => {
        text.end();
        this.message("agentExit", e, p);
      });
      return (stream, line) => {
        if (stream === "stdoutText") text.push(line);
        else if (line.trim()) this.entry(stream === "stdin" ? "agentIn" : "agentOut", line, p);
      };
    }
    const pty = this.pieces("agentPty", p);
    proc.onData((d) => pty.push(d));
    void proc.exited.then((e) => {
      pty.end();
      this.message("agentExit", e, p);
    });
  }

  /** Entries of output that comes in pieces, redacted across piece boundaries. */
  private pieces(dir: "agentPty" | "agentText", p: number): { push(piece: string): void; end(): void } {
    const redacted = this.redactor.stream();
    // Already redacted: written as they are.
    const write = (line: string) => {
      if (line && this.fd !== null) this.writeRaw(JSON.stringify({ t: this.now(), dir, line, p }));
    };
    return { push: (piece) => write(redacted.push(piece)), end: () => write(redacted.end()) };
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
    const t = new Transcript(this.dir, { sessionId, spec, options }, this.redactor, this.logger);
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
