// `a4aa replay FILE` (R-REPLAY-1): an agent program built from a transcript. A session
// whose lane kept one process (acp, rpc, the stream-json CLIs) is replayed as a dialog on
// stdin/stdout; a per-turn CLI's turn is replayed by printing the recorded turn's output.
import { createInterface } from "node:readline";
import type { TranscriptHeader } from "../journal/transcript.js";
import { Dialog, type ReplayIo, type ReplayOptions, type Substitutions } from "./dialog.js";
import { replayTurn, TurnTracker } from "./per-turn.js";
import { classify } from "./protocol.js";
import { LazyEntries, TranscriptFile } from "./transcript-file.js";
import { SESSION_PROCESS_DRIVERS } from "../../generated/ts/limits.js";


/** Whether the recorded session ran one process per turn. */
export function isPerTurn(header: TranscriptHeader): boolean {
  const spec = header.spec as { lane?: string; driver?: string };
  return spec?.lane === "cli" && !(SESSION_PROCESS_DRIVERS as readonly string[]).includes(String(spec.driver));
}

/** Writes `text`; resolves once the stream takes more (or failed: a gone reader ends nothing here). */
function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(text)) return resolve();
    const done = () => {
      stream.off("drain", done);
      stream.off("error", done);
      stream.off("close", done);
      resolve();
    };
    stream.once("drain", done);
    stream.once("error", done);
    stream.once("close", done);
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function replay(file: string, argv: string[], o: ReplayOptions): Promise<number> {
  // N12: the transcript is streamed, never held: one pass notes where the entries to play
  // are, and each is read again from the file when it is played.
  const t = TranscriptFile.open(file);
  try {
    return await play(t, file, argv, o);
  } finally {
    t.close();
  }
}

async function play(t: TranscriptFile, file: string, argv: string[], o: ReplayOptions): Promise<number> {
  const pending = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.then(() => pending.delete(p));
    return p;
  };
  const io: ReplayIo = {
    next: () => Promise.resolve(null),
    // Each write waits while the reader is behind: the output is never held in memory.
    stdout: (s) => track(write(process.stdout, s)),
    stderr: (s) => track(write(process.stderr, s)),
    sleep,
  };
  if (isPerTurn(t.header)) {
    const stdin = await readAll(process.stdin, 2000);
    const byProcess = new Map<number, LazyEntries>();
    const tracker = new TurnTracker();
    t.forEach((e, offset, length) => {
      if (tracker.visit(e)) (byProcess.get(e.p!) ?? byProcess.set(e.p!, new LazyEntries(t)).get(e.p!)!).add(offset, length, false);
    });
    const turns = tracker.turns();
    const code = await replayTurn(file, turns.map((x) => ({ ...x, entries: byProcess.get(x.p) ?? [] })), argv, stdin, io, o);
    await Promise.all([...pending]);
    process.stdin.destroy();
    return code;
  }
  // The session's agent is its first process; later ones (terminals) are the sidecar's own.
  const items = new LazyEntries(t);
  let start: { args?: string[] } | undefined;
  t.forEach((e, offset, length) => {
    if (e.p !== 1) return;
    if (e.dir === "agentStart") start ??= e.msg as { args?: string[] };
    else items.add(offset, length, e.dir === "agentIn" && classify(e.msg).kind === "prompt");
  });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })[Symbol.asyncIterator]();
  io.next = async () => {
    for (;;) {
      const r = await lines.next();
      if (r.done) return null;
      const line = r.value;
      if (!line.trim()) continue;
      try {
        return { msg: JSON.parse(line), line };
      } catch {
        return { line };
      }
    }
  };
  const code = await new Dialog(items, io, o, argvSubstitutions(t.header, start, argv)).run();
  await Promise.all([...pending]);
  process.stdin.destroy();
  return code;
}

/**
 * The values the lane put in the recorded argv that differ now (a session id the sidecar
 * chose): the recorded output naming them is given the live ones.
 */
function argvSubstitutions(header: TranscriptHeader, start: { args?: string[] } | undefined, argv: string[]): Substitutions {
  const prefix = ((header.spec as { command?: { args?: string[] } })?.command?.args ?? []).length;
  const recorded = (start?.args ?? []).slice(prefix);
  const subst: Substitutions = new Map();
  if (recorded.length !== argv.length) return subst;
  recorded.forEach((a, i) => {
    if (a !== argv[i] && a.length >= 8 && !a.startsWith("-")) subst.set(a, argv[i]);
  });
  return subst;
}

/** stdin to its end, or what came within `ms` if it stays open. */
function readAll(input: NodeJS.ReadStream, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    const done = () => {
      clearTimeout(timer);
      input.pause();
      resolve(text);
    };
    const timer = setTimeout(done, ms);
    input.setEncoding("utf8");
    input.on("data", (d: string) => (text += d));
    input.once("end", done);
    input.once("error", done);
  });
}
