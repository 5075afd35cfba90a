// `a4aa replay FILE` (R-REPLAY-1): an agent program built from a transcript. A session
// whose lane kept one process (acp, rpc, the stream-json CLIs) is replayed as a dialog on
// stdin/stdout; a per-turn CLI's turn is replayed by printing the recorded turn's output.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseTranscript, type ParsedTranscript } from "../journal/transcript.js";
import { Dialog, type ReplayIo, type ReplayOptions, type Substitutions } from "./dialog.js";
import { recordedTurns, replayTurn } from "./per-turn.js";
import { SESSION_PROCESS_DRIVERS } from "../../generated/ts/limits.js";


export function loadTranscript(file: string): ParsedTranscript {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`cannot read the transcript ${file}: ${(e as Error).message}`);
  }
  return parseTranscript(text, file);
}

/** Whether the recorded session ran one process per turn. */
export function isPerTurn(t: ParsedTranscript): boolean {
  const spec = t.header.spec as { lane?: string; driver?: string };
  return spec?.lane === "cli" && !(SESSION_PROCESS_DRIVERS as readonly string[]).includes(String(spec.driver));
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((r) => (stream.write(text) ? r() : stream.once("drain", r)));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function replay(file: string, argv: string[], o: ReplayOptions): Promise<number> {
  const t = loadTranscript(file);
  const pending: Promise<void>[] = [];
  const io: ReplayIo = {
    next: () => Promise.resolve(null),
    stdout: (s) => void pending.push(write(process.stdout, s)),
    stderr: (s) => void pending.push(write(process.stderr, s)),
    sleep,
  };
  if (isPerTurn(t)) {
    const stdin = await readAll(process.stdin, 2000);
    const code = await replayTurn(file, recordedTurns(t.entries), argv, stdin, io, o);
    await Promise.all(pending);
    process.stdin.destroy();
    return code;
  }
  // The session's agent is its first process; later ones (terminals) are the sidecar's own.
  const items = t.entries.filter((e) => e.p === 1 && e.dir !== "agentStart");
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
  const code = await new Dialog(items, io, o, argvSubstitutions(t, argv)).run();
  await Promise.all(pending);
  process.stdin.destroy();
  return code;
}

/**
 * The values the lane put in the recorded argv that differ now (a session id the sidecar
 * chose): the recorded output naming them is given the live ones.
 */
function argvSubstitutions(t: ParsedTranscript, argv: string[]): Substitutions {
  const start = t.entries.find((e) => e.dir === "agentStart" && e.p === 1)?.msg as { args?: string[] } | undefined;
  const prefix = ((t.header.spec as { command?: { args?: string[] } })?.command?.args ?? []).length;
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
