// `a4aa run`: a person's client for any agent: one turn with a prompt, an interactive session
// without one (on a terminal: terminal-run.ts), or the a4aa.v1 events as NDJSON with --json.
import { A4aaError } from "../../../clients/ts/index.js";
import { UsageError } from "../args.js";
import { EXIT, exitFor } from "./exit-codes.js";
import { failClosed } from "./fail-closed.js";
import { describeError } from "./hints.js";
import { RUN_HELP, parseRunArgs, sidecarPlace, type RunOptions } from "./options.js";
import { LateHooks, RunSession } from "./session.js";

export async function runCommand(argv: string[]): Promise<number> {
  const o = parseRunArgs(argv);
  if (o === "help") {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  let prompt = o.prompt;
  if (!prompt && !process.stdin.isTTY) {
    prompt = (await readAll(process.stdin)).trim();
    if (!prompt && !o.attachments.length) throw new UsageError("no prompt: give one as arguments or pipe it on stdin (an interactive session needs a terminal)", "a4aa run --help");
  }
  if (o.json) {
    if (!prompt && !o.attachments.length) throw new UsageError("--json runs one turn: give a PROMPT or pipe one on stdin", "a4aa run --help");
    return jsonRun(o, prompt);
  }
  // The sidecar starts first, and boots while the terminal's modules load (about 50 ms of
  // imports that would otherwise come before it).
  const hooks = new LateHooks();
  const session = new RunSession(hooks, sidecarPlace(o));
  const { TerminalRun } = await import("./terminal-run.js");
  // Attachments without a prompt, and no terminal to type one: they are the prompt.
  return new TerminalRun(o, session, hooks).run(prompt, !prompt && !process.stdin.isTTY);
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.setEncoding("utf8");
    stream.on("data", (d: string) => (text += d));
    stream.once("end", () => resolve(text));
    stream.once("error", reject);
  });
}

async function jsonRun(o: RunOptions, prompt: string): Promise<number> {
  const line = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);
  // The first line is the open (as --help promises): events the agent sends while the session
  // opens (a resumed history, its mode) wait for it.
  let early: unknown[] | null = [];
  const session = new RunSession({
    onEvent: (sessionId, event) => (early ? early.push({ sessionId, event }) : line({ sessionId, event })),
    onPermission: failClosed(o, (t) => process.stderr.write(t)),
    onSidecarLog: (t) => process.stderr.write(t),
  }, sidecarPlace(o));
  let code: number = EXIT.error;
  try {
    const first = (sessionId: string, what: object) => {
      line({ sessionId, ...what });
      for (const e of early ?? []) line(e);
      early = null;
    };
    // --session: the first line is the attached session as sessions/list shows it, then its events so far.
    if (o.session) await session.attachSession(o.session, (s) => first(s.sessionId, { attached: s }));
    else await session.openSession(o, (opened) => first(opened.sessionId, { open: opened }));
    const outcome = await session.prompt(prompt, undefined, o.attachments.map((a) => a.block));
    line({ sessionId: session.sessionId, outcome });
    code = exitFor(outcome);
  } catch (e) {
    const d = describeError(e, session.credentials);
    const data = e instanceof A4aaError ? (e.data as object | undefined) : undefined;
    line({ ...(session.sessionId ? { sessionId: session.sessionId } : {}), error: { message: d.message, code: d.code, ...(data ? { data } : {}), ...(d.hint ? { hint: d.hint } : {}) } });
    process.stderr.write(`a4aa run: ${d.message}\n${d.hint ? `fix: ${d.hint}\n` : ""}`);
  }
  const status = await session.end();
  if (status.code !== 0 && code === EXIT.ok) code = EXIT.error;
  return code;
}
