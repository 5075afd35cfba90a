// Replays one long-lived agent process (ACP, codex app-server, a stream-json CLI): the
// recorded stdout/stderr is written in order, each recorded stdin message is waited for
// live, and answers carry the live request ids. Prompts are matched against the recorded
// ones; permission answers are asked again and must follow a recorded branch.
import type { TranscriptEntry } from "../journal/transcript.js";
import type { EntryList } from "./transcript-file.js";
import { classify, decisionOf, failTurn, isPermissionAsk, liveId, promptText, withLiveIds } from "./protocol.js";

export interface ReplayIo {
  /** The next live stdin line (parsed when it is JSON), or null at EOF. */
  next(): Promise<{ msg?: unknown; line: string } | null>;
  /** Resolves when the text is written (a replay waits for a slow reader: memory stays bounded). */
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void | Promise<void>;
  sleep(ms: number): Promise<void>;
}

export interface ReplayOptions {
  instant: boolean;
  strict: boolean;
  /** Longest recorded pause honoured (ms). */
  maxDelayMs?: number;
}

/** Recorded values that stand for live ones (ids the sidecar chose and put in argv). */
export type Substitutions = Map<string, string>;

export function substitute(v: unknown, subst: Substitutions): unknown {
  if (!subst.size) return v;
  if (typeof v === "string") {
    let s = v;
    for (const [from, to] of subst) if (s.includes(from)) s = s.split(from).join(to);
    return s;
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, subst));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, subst)]));
  return v;
}

const payload = (e: TranscriptEntry): unknown => (e.msg !== undefined ? e.msg : e.line);

export class Dialog {
  private pos = 0;
  /** Recorded id (JSON text) of a sidecar request → the live id to answer with. */
  private readonly ids = new Map<string, unknown>();
  /** Recorded agent requests (by id key), to know which answers are permission answers. */
  private readonly asks = new Map<string, unknown>();
  private anchor = { live: Date.now(), rec: 0 };
  private livePrompt: unknown;
  private turnStart = -1;
  private exitCode = 0;

  private readonly items: EntryList;

  constructor(
    items: EntryList,
    private readonly io: ReplayIo,
    private readonly o: ReplayOptions,
    private readonly subst: Substitutions = new Map(),
  ) {
    this.items = items;
  }

  /** Whether entry `i` is a recorded prompt. */
  private isPrompt(i: number): boolean {
    if (this.items.isPrompt) return this.items.isPrompt(i);
    const e = this.items.at(i);
    return e?.dir === "agentIn" && classify(e.msg).kind === "prompt";
  }

  /** Runs until stdin ends; resolves with the exit code to use. */
  async run(): Promise<number> {
    for (;;) {
      const it = this.items.at(this.pos);
      if (!it) return this.drain();
      if (it.dir === "agentIn") {
        const live = await this.io.next();
        if (!live) return this.exitCode;
        this.take(live.msg !== undefined ? live.msg : live.line);
        continue;
      }
      this.pos++;
      if (it.dir === "agentExit") {
        const e = it.msg as { code: number | null; signal: string | null };
        this.exitCode = e.code ?? 0;
        // An agent that died on its own dies again now; one that was stopped waits for EOF.
        if (this.exitCode !== 0) return this.exitCode;
        continue;
      }
      await this.pace(it.t);
      if (it.dir === "agentOut") await this.send(withLiveIds(substitute(payload(it), this.subst), this.ids));
      else if (it.dir === "agentErr") await this.io.stderr(`${it.line ?? JSON.stringify(it.msg)}\n`);
      else if (it.dir === "agentPty" || it.dir === "agentText") await this.io.stdout(it.line ?? "");
    }
  }

  private send(m: unknown): void | Promise<void> {
    const c = classify(m);
    if (c.kind === "request" && c.idKey && isPermissionAsk(m)) this.asks.set(c.idKey, m);
    return this.io.stdout(typeof m === "string" ? `${m}\n` : `${JSON.stringify(m)}\n`);
  }

  private async pace(t: number): Promise<void> {
    if (this.o.instant) return;
    const due = this.anchor.live + Math.min(t - this.anchor.rec, this.o.maxDelayMs ?? 30_000);
    const wait = due - Date.now();
    if (wait > 0) await this.io.sleep(wait);
  }

  /** Matches one live stdin message against the recording at `pos`. */
  private take(live: unknown): void {
    const lc = classify(live);
    for (;;) {
      const it = this.items.at(this.pos);
      if (!it || it.dir !== "agentIn") return this.unexpected(live, lc.kind);
      const rec = payload(it);
      const rc = classify(rec);
      if (lc.kind === "prompt") {
        if (rc.kind === "prompt") return this.startTurn(live, rec, it.t);
        const next = this.findPrompt(this.pos);
        if (next < 0) return this.unexpected(live, lc.kind);
        this.pos = next;
        continue;
      }
      if (lc.kind === "response") {
        if (rc.kind === "response" && rc.idKey === lc.idKey) return this.answered(live, rec, rc.idKey!, it.t);
        if (rc.kind === "notification" || rc.kind === "line") {
          this.pos++;
          continue;
        }
        return; // an answer the recording does not wait for (a late one): nothing to do
      }
      if ((lc.kind === "request" || lc.kind === "notification") && rc.kind === lc.kind && rc.name === lc.name) {
        if (lc.kind === "request") this.ids.set(rc.idKey!, liveId(live));
        return this.matched(it.t);
      }
      if (lc.kind === "line" && rc.kind === "line") return this.matched(it.t);
      if (rc.kind === "notification" && lc.kind !== "notification") {
        // Recorded but not sent now (a cancel the host does not repeat): skip it.
        this.pos++;
        continue;
      }
      return this.unexpected(live, lc.kind);
    }
  }

  private matched(t: number): void {
    this.pos++;
    this.anchor = { live: Date.now(), rec: t };
  }

  private startTurn(live: unknown, rec: unknown, t: number): void {
    const now = promptText(live);
    const then = promptText(rec);
    this.livePrompt = live;
    this.ids.set(classify(rec).idKey ?? "", liveId(live));
    this.turnStart = this.pos;
    if (now !== then && this.o.strict) {
      const reason = `--strict: the prompt ${JSON.stringify(now)} differs from the recorded one, ${JSON.stringify(then)}`;
      this.pos = this.nextTurnEnd(this.pos + 1);
      return this.fail(reason);
    }
    this.matched(t);
  }

  /** A live answer to a recorded agent request; permission answers must follow a recorded branch. */
  private answered(live: unknown, rec: unknown, idKey: string, t: number): void {
    if (!this.asks.has(idKey) || decisionOf(live) === decisionOf(rec)) return this.matched(t);
    const branch = this.findBranch(idKey, decisionOf(live));
    if (branch >= 0) {
      this.pos = branch;
      return this.matched(this.items.at(branch)!.t);
    }
    const reason =
      `the host answered the permission request with ${decisionOf(live)}; the transcript recorded ${decisionOf(rec)} ` +
      "and has no branch for that answer (record a session that answers it that way)";
    this.pos = this.nextTurnEnd(this.pos + 1);
    this.fail(reason);
  }

  private fail(reason: string): void {
    this.io.stderr(`a4aa replay: ${reason}\n`);
    const promptId = classify(payload(this.items.at(this.turnStart)!)).idKey;
    let started: TranscriptEntry | undefined;
    for (let i = this.turnStart + 1; i < this.items.length && !started; i++) {
      const e = this.items.at(i)!;
      if (e.dir === "agentOut" && classify(e.msg).idKey === promptId) started = e;
    }
    for (const m of failTurn(withLiveIds(this.livePrompt, new Map()), reason, started?.msg)) this.send(m);
    this.anchor = { live: Date.now(), rec: this.items.at(this.pos)?.t ?? 0 };
  }

  private unexpected(live: unknown, kind: string): void {
    if (kind === "prompt") {
      this.livePrompt = live;
      this.turnStart = this.pos;
      let recorded = 0;
      for (let i = 0; i < this.items.length; i++) if (this.isPrompt(i)) recorded++;
      return this.fail(`the transcript has no more turns to play (it recorded ${recorded})`);
    }
    if (kind === "request") {
      const c = classify(live);
      const m = live as { id?: unknown; request_id?: unknown };
      const message = `a4aa replay: the transcript has no ${c.name} request at this point`;
      this.io.stderr(`${message}\n`);
      if ("request_id" in (m as object)) this.send({ type: "control_response", response: { subtype: "error", request_id: m.request_id, error: message } });
      else this.send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message } });
    }
    // Notifications, answers and lines the recording has no place for are dropped.
  }

  /** The index of the next recorded prompt at or after `from`, or -1. */
  private findPrompt(from: number): number {
    for (let i = from; i < this.items.length; i++) if (this.isPrompt(i)) return i;
    return -1;
  }

  /** Where the turn that starts before `from` ends: the next prompt, or the end. */
  private nextTurnEnd(from: number): number {
    const i = this.findPrompt(from);
    return i < 0 ? this.items.length : i;
  }

  /**
   * Another recorded turn with the same prompt whose permission ask at the same point was
   * answered `decision`: its index, or -1.
   */
  private findBranch(idKey: string, decision: string): number {
    const prompt = promptText(payload(this.items.at(this.turnStart)!));
    const nth = this.askIndex(this.turnStart, idKey);
    for (let s = this.findPrompt(0); s >= 0; s = this.findPrompt(s + 1)) {
      if (s === this.turnStart || promptText(payload(this.items.at(s)!)) !== prompt) continue;
      const end = this.nextTurnEnd(s + 1);
      let n = 0;
      for (let i = s + 1; i < end; i++) {
        const e = this.items.at(i)!;
        const c = classify(e.msg);
        if (e.dir === "agentOut" && c.kind === "request" && isPermissionAsk(e.msg)) n++;
        if (e.dir === "agentIn" && c.kind === "response" && n === nth && this.isAskAnswer(s, i, c.idKey!) && decisionOf(e.msg) === decision) {
          // The branch's own prompt and ask ids now stand for the live ones.
          this.ids.set(classify(payload(this.items.at(s)!)).idKey ?? "", liveId(this.livePrompt));
          return i;
        }
      }
    }
    return -1;
  }

  private askIndex(turn: number, idKey: string): number {
    let n = 0;
    for (let i = turn + 1; i < this.items.length; i++) {
      const e = this.items.at(i)!;
      if (e.dir === "agentOut" && classify(e.msg).kind === "request" && isPermissionAsk(e.msg)) {
        n++;
        if (classify(e.msg).idKey === idKey) return n;
      }
    }
    return n;
  }

  private isAskAnswer(from: number, at: number, idKey: string): boolean {
    for (let i = from; i < at; i++) {
      const e = this.items.at(i)!;
      if (e.dir === "agentOut" && classify(e.msg).idKey === idKey && isPermissionAsk(e.msg)) return true;
    }
    return false;
  }

  /** After the recording: answer what comes until stdin ends. */
  private async drain(): Promise<number> {
    for (;;) {
      const live = await this.io.next();
      if (!live) return this.exitCode;
      const m = live.msg !== undefined ? live.msg : live.line;
      this.unexpected(m, classify(m).kind);
    }
  }
}
