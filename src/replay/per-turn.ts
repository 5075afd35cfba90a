// Replays one turn of a per-turn CLI (gemini -p, codex exec, …): each turn is its own
// process, so the turn is found by its prompt — the recorded host prompt that appears in
// this process's argv or stdin — and, by default, by order (a small state file keyed by
// the parent sidecar's pid, in a private 0700 folder, remembers the next turn).
import { closeSync, constants, lstatSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, writeSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { TranscriptEntry } from "../journal/transcript.js";
import type { ReplayIo, ReplayOptions } from "./dialog.js";

export interface RecordedTurn {
  /** The host's prompt text of this turn. */
  prompt: string;
  /** The args the process was started with (its agentStart entry). */
  args?: string[];
  /** The entries of the turn's process (read from the file as they are played). */
  entries: Iterable<TranscriptEntry>;
}

/** The per-turn processes of a transcript, each with the host prompt it ran for. */
export function recordedTurns(entries: Iterable<TranscriptEntry>): RecordedTurn[] {
  const byProcess = new Map<number, TranscriptEntry[]>();
  const turns = new TurnTracker();
  for (const e of entries) if (turns.visit(e)) (byProcess.get(e.p!) ?? byProcess.set(e.p!, []).get(e.p!)!).push(e);
  return turns.turns().map((t) => ({ ...t, entries: byProcess.get(t.p) ?? [] }));
}

/**
 * Seen entry by entry (a transcript is streamed): each process's turn (the host prompt
 * current when it started) and args.
 */
export class TurnTracker {
  private prompt: string | undefined;
  private readonly byProcess = new Map<number, Omit<RecordedTurn, "entries"> & { p: number }>();

  /** Notes `e`; true when it is an entry of a process (to keep for its turn). */
  visit(e: TranscriptEntry): boolean {
    const m = e.msg as { method?: string; params?: { text?: string } } | undefined;
    if (e.dir === "hostIn" && m?.method === "session/prompt") this.prompt = String(m.params?.text ?? "");
    if (e.p === undefined || !e.dir.startsWith("agent")) return false;
    if (!this.byProcess.has(e.p)) this.byProcess.set(e.p, { p: e.p, prompt: this.prompt ?? "" });
    if (e.dir === "agentStart") {
      const t = this.byProcess.get(e.p)!;
      t.prompt = this.prompt ?? "";
      t.args = (e.msg as { args?: string[] } | undefined)?.args;
    }
    return true;
  }

  turns(): (Omit<RecordedTurn, "entries"> & { p: number })[] {
    return [...this.byProcess.values()];
  }
}

/** Whether this process (argv, stdin) runs `prompt`. */
function runs(prompt: string, argv: string[], stdin: string): boolean {
  return argv.some((a) => a === prompt || a.endsWith(prompt)) || (prompt !== "" && stdin.includes(prompt));
}

/** The live prompt, for messages: the argument in the place the recorded one had, or stdin. */
function livePrompt(turn: RecordedTurn, argv: string[], stdin: string): string {
  const recArgs = turn.args ?? [];
  const at = recArgs.findIndex((a) => a === turn.prompt || a.endsWith(turn.prompt));
  if (at >= 0) {
    const fromEnd = recArgs.length - at;
    return argv[argv.length - fromEnd] ?? stdin;
  }
  return stdin;
}

/**
 * N4: the replay state of this transcript under this sidecar lives in a private folder,
 * `$TMPDIR/a4aa-replay-<key>-<ppid>-XXXXXX` made by mkdtemp (mode 0700). A later process
 * finds it by its prefix and takes only a real folder of ours with mode 0700: a link or a
 * folder someone else planted there is never used.
 */
function stateDir(transcript: string): string {
  const key = createHash("sha256").update(path.resolve(transcript)).digest("hex").slice(0, 16);
  const tmp = os.tmpdir();
  const prefix = `a4aa-replay-${key}-${process.ppid}-`;
  let names: string[] = [];
  try {
    names = readdirSync(tmp).filter((n) => n.startsWith(prefix));
  } catch {
    // mkdtemp reports a missing $TMPDIR below
  }
  const uid = process.getuid?.();
  for (const n of names) {
    const st = lstatSync(path.join(tmp, n), { throwIfNoEntry: false });
    if (st?.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o777) === 0o700) return path.join(tmp, n);
  }
  return mkdtempSync(path.join(tmp, prefix));
}

const STATE = "state.json";

function readState(dir: string): number {
  let fd: number | undefined;
  try {
    fd = openSync(path.join(dir, STATE), constants.O_RDONLY | constants.O_NOFOLLOW);
    return Number((JSON.parse(readFileSync(fd, "utf8")) as { next?: number }).next) || 0;
  } catch {
    return 0; // the first turn of this sidecar
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A new file (O_EXCL|O_NOFOLLOW, 0600) renamed over the state: nothing is written through a link. */
function writeState(dir: string, next: number): void {
  const tmp = path.join(dir, `${STATE}.${process.pid}.${randomBytes(4).toString("hex")}`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, JSON.stringify({ next }));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path.join(dir, STATE));
}

export async function replayTurn(
  transcript: string,
  turns: RecordedTurn[],
  argv: string[],
  stdin: string,
  io: Pick<ReplayIo, "stdout" | "stderr" | "sleep">,
  o: ReplayOptions,
): Promise<number> {
  const dir = stateDir(transcript);
  const next = readState(dir);
  let chosen = turns.findIndex((t, i) => i >= next && runs(t.prompt, argv, stdin));
  if (chosen < 0) chosen = turns.findIndex((t) => runs(t.prompt, argv, stdin));
  if (chosen < 0) {
    const expected = turns[Math.min(next, turns.length - 1)];
    if (!expected) {
      io.stderr(`a4aa replay: the transcript has no more turns to play (it recorded ${turns.length})\n`);
      return 1;
    }
    if (o.strict) {
      io.stderr(
        `a4aa replay: --strict: the prompt ${JSON.stringify(livePrompt(expected, argv, stdin))} differs from the recorded one, ${JSON.stringify(expected.prompt)}\n`,
      );
      return 1;
    }
    chosen = Math.min(next, turns.length - 1);
    if (next >= turns.length) {
      io.stderr(`a4aa replay: the transcript has no more turns to play (it recorded ${turns.length})\n`);
      return 1;
    }
  }
  writeState(dir, chosen + 1);

  let code = 0;
  let last: number | undefined;
  for (const e of turns[chosen].entries) {
    last ??= e.t;
    if (!o.instant && e.t > last) await io.sleep(Math.min(e.t - last, o.maxDelayMs ?? 30_000));
    last = Math.max(last, e.t);
    if (e.dir === "agentOut") await io.stdout(`${e.line ?? JSON.stringify(e.msg)}\n`);
    else if (e.dir === "agentErr") await io.stderr(`${e.line ?? JSON.stringify(e.msg)}\n`);
    else if (e.dir === "agentPty" || e.dir === "agentText") await io.stdout(e.line ?? "");
    else if (e.dir === "agentExit") code = (e.msg as { code: number | null }).code ?? 1;
  }
  return code;
}
