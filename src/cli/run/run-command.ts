// `a4aa run`: a person's client for any agent: one turn with a prompt, an interactive session
// without one (on a terminal), or the a4aa.v1 events as NDJSON with --json.
import { createInterface } from "node:readline";
import { A4aaError, currentSelectorValue, offeredValues, type PermissionRequest, type PermissionResponse, type SessionState, type TurnOutcome } from "../../../clients/ts/index.js";
import { ERROR_CODES, type ErrorCodeInfo } from "../../../generated/ts/errors.js";
import { UsageError } from "../args.js";
import { AttachError, attachment, describeAttachment } from "./attachments.js";
import { describeError } from "./hints.js";
import { KeyInput, optionKeys } from "./keys.js";
import { RUN_HELP, parseRunArgs, type RunOptions } from "./options.js";
import { Renderer } from "./renderer.js";
import { PlainScreen, TtyScreen, type Screen } from "./screen.js";
import { RunSession } from "./session.js";
import { colors, wantColor } from "./style.js";

const EXIT = { ok: 0, error: 1, cancelled: 130 } as const;
/** After these the session cannot take another prompt. */

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
  // Attachments without a prompt, and no terminal to type one: they are the prompt.
  return new TerminalRun(o).run(prompt, !prompt && !process.stdin.isTTY);
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

/** Permission requests with nobody to ask: refused, and said once. */
function failClosed(o: RunOptions, warn: (text: string) => void): (req: PermissionRequest) => PermissionResponse {
  let said = false;
  return (req) => {
    if (!said) {
      said = true;
      warn(
        `a4aa run: the agent asked permission (${req.title}) and there is no terminal to ask you, so it was refused, as will be any later request` +
          `${o.options.permission ? "" : ". Pass --permission acceptEdits, readOnly or bypass to let a preset decide"}.\n`,
      );
    }
    return { cancelled: true };
  };
}

function exitFor(outcome: TurnOutcome): number {
  if (outcome.stopReason === "endTurn") return EXIT.ok;
  if (outcome.stopReason === "cancelled") return EXIT.cancelled;
  // maxTokens, maxTurnRequests, refusal: the turn did not finish its work.
  return ["maxTokens", "maxTurnRequests", "refusal"].includes(outcome.stopReason) ? EXIT.error : EXIT.ok;
}

async function jsonRun(o: RunOptions, prompt: string): Promise<number> {
  const line = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);
  const session = new RunSession({
    onEvent: (sessionId, event) => line({ sessionId, event }),
    onPermission: failClosed(o, (t) => process.stderr.write(t)),
    onSidecarLog: (t) => process.stderr.write(t),
  });
  let code: number = EXIT.error;
  try {
    const open = await session.openSession(o);
    line({ sessionId: open.sessionId, open });
    const outcome = await session.prompt(prompt, undefined, o.attachments.map((a) => a.block));
    line({ sessionId: open.sessionId, outcome });
    code = exitFor(outcome);
  } catch (e) {
    const d = describeError(e);
    const data = e instanceof A4aaError ? (e.data as object | undefined) : undefined;
    line({ ...(session.sessionId ? { sessionId: session.sessionId } : {}), error: { message: d.message, code: d.code, ...(data ? { data } : {}), ...(d.hint ? { hint: d.hint } : {}) } });
    process.stderr.write(`a4aa run: ${d.message}\n${d.hint ? `fix: ${d.hint}\n` : ""}`);
  }
  const status = await session.end();
  if (status.code !== 0 && code === EXIT.ok) code = EXIT.error;
  return code;
}

type TurnEnd = "done" | "cancelled" | "error" | "fatal" | "quit";

class TerminalRun {
  private readonly screen: Screen;
  private readonly r: Renderer;
  private readonly keys: KeyInput | undefined;
  private readonly session: RunSession;
  private readonly history: string[] = [];
  private typedAhead = "";
  private queued: string[] = [];
  private turnModel: string | undefined;
  private replaying = false;
  private inTurn = false;
  private sigints = 0;
  private turnCancel: (() => void) | undefined;
  /** Content for the next prompt: --attach, then /attach. */
  private pending: RunOptions["attachments"];

  constructor(private readonly o: RunOptions) {
    this.pending = [...o.attachments];
    const out = process.stdout;
    this.screen = out.isTTY ? new TtyScreen(out) : new PlainScreen(out);
    this.r = new Renderer(this.screen, colors(wantColor(out, process.env, o.noColor)));
    this.keys = process.stdin.isTTY ? new KeyInput(process.stdin) : undefined;
    const refuse = failClosed(o, (t) => {
      this.screen.flush();
      process.stderr.write(t);
    });
    this.session = new RunSession({
      onEvent: (sid, e) => {
        if (sid === this.session.sessionId && !this.replaying) this.r.event(e);
      },
      onPermission: (req) => (this.keys?.active ? this.ask(req) : refuse(req)),
      onSidecarLog: (t) => (this.screen.live ? this.r.note(t.trimEnd()) : process.stderr.write(t)),
    });
  }

  async run(prompt: string, attachmentsOnly = false): Promise<number> {
    // Without raw mode (stdin not a terminal) Ctrl-C arrives as SIGINT.
    const onSigint = () => {
      this.sigints++;
      if (this.inTurn && this.sigints === 1) return this.interrupt();
      if (this.turnCancel) return this.turnCancel();
      // Opening, or between turns: the sidecar ends every agent on our stdin's EOF.
      process.exit(EXIT.cancelled);
    };
    process.on("SIGINT", onSigint);
    let code: number;
    try {
      code = prompt || attachmentsOnly ? await this.oneShot(prompt) : await this.interactive();
    } finally {
      process.off("SIGINT", onSigint);
    }
    this.screen.pause();
    const status = await this.session.end();
    if (status.code !== 0 && status.signal !== "SIGINT") {
      process.stderr.write(`a4aa run: the sidecar exited ${status.code ?? status.signal} (some agent process may not have been cleaned up)\n`);
      if (code === EXIT.ok) code = EXIT.error;
    }
    if (this.screen instanceof TtyScreen) this.screen.close();
    return code;
  }

  private async open(): Promise<boolean> {
    try {
      await this.session.openSession(this.o, (open) => {
        this.r.opened(open, this.o.label);
        if (this.o.resume) this.r.note("the conversation so far:");
      });
      await new Promise((r) => setImmediate(r));
      this.r.endStream();
      return true;
    } catch (e) {
      // Before protocol 1.2 the sidecar knows no catalog: `agent` is an unknown field there.
      const noCatalog = "agent" in this.o.target && describeError(e).code === "invalid_params" && /"spec"|agent/.test(String((e as Error).message));
      this.r.failed(e, `opening ${this.o.label}`, noCatalog ? "this a4aa serve has no agents catalog (protocol 1.2); pass the agent as --spec FILE|JSON" : undefined);
      this.screen.pause();
      process.stderr.write(`a4aa run: ${describeError(e).message}\n`);
      return false;
    }
  }

  private async oneShot(prompt: string): Promise<number> {
    if (!(await this.open())) return EXIT.error;
    const end = await this.turn(prompt);
    return end === "done" ? this.lastExit : end === "cancelled" || end === "quit" ? EXIT.cancelled : EXIT.error;
  }

  private lastExit: number = EXIT.ok;
  private interactiveMode = false;

  private async interactive(): Promise<number> {
    this.interactiveMode = true;
    if (!(await this.open())) return EXIT.error;
    this.r.note("Type a prompt and press Enter. Ctrl-C cancels a turn; Ctrl-D or /exit ends the session; /help lists the commands.");
    let interrupted = false;
    for (;;) {
      this.screen.pause();
      const got = await this.readLine();
      if (got === "eof") {
        process.stdout.write("\n");
        break;
      }
      if (got === "interrupt") {
        if (interrupted) break;
        interrupted = true;
        this.r.note("(press Ctrl-C again, or Ctrl-D, to end the session)");
        continue;
      }
      interrupted = false;
      const line = got.trim();
      if (!line) continue;
      if (line.startsWith("/")) {
        const c = await this.command(line);
        if (c === "exit") break;
        if (c === "ok") continue;
      }
      let end = await this.turn(line);
      while (end !== "quit" && end !== "fatal" && this.queued.length) end = await this.turn(this.queued.shift()!);
      if (end === "quit") return EXIT.cancelled;
      if (end === "fatal") return EXIT.error;
    }
    this.goodbye();
    return EXIT.ok;
  }

  private goodbye(): void {
    const open = this.session.open;
    const native = this.r.nativeSessionId;
    const how = "agent" in this.o.target ? ` --agent ${this.o.target.agent.id}` : this.o.label === "example agent" ? "" : " --spec …";
    if (open?.capabilities.resume && native) this.r.note(`session ended; continue it with: a4aa run${how} --resume ${native}`);
    else this.r.note("session ended");
    this.screen.flush();
  }

  private readLine(): Promise<string | "eof" | "interrupt"> {
    return new Promise((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true, history: [...this.history], historySize: 200, removeHistoryDuplicates: true });
      let settled = false;
      const settle = (v: string | "eof" | "interrupt") => {
        if (settled) return;
        settled = true;
        rl.close();
        resolve(v);
      };
      rl.on("line", (l) => {
        if (l.trim()) this.history.unshift(l);
        settle(l);
      });
      rl.on("SIGINT", () => {
        process.stdout.write("\n");
        settle("interrupt");
      });
      rl.on("close", () => settle("eof"));
      rl.setPrompt(this.r.c.cyan("› "));
      rl.prompt();
      if (this.typedAhead) rl.write(this.typedAhead);
      this.typedAhead = "";
    });
  }

  private interrupt(): void {
    this.r.note("cancelling the turn… (Ctrl-C again ends the session)");
    void this.session.cancel();
  }

  private async turn(text: string): Promise<TurnEnd> {
    this.inTurn = true;
    this.sigints = 0;
    let interrupts = 0;
    let quit: () => void = () => undefined;
    const quitting = new Promise<"quit">((resolve) => (quit = () => resolve("quit")));
    this.turnCancel = () => quit();
    this.r.turnStarted();
    const content = this.pending.splice(0);
    if (content.length) this.r.note(`attached: ${content.map((a) => a.label).join(", ")}`);
    const p = this.session.prompt(text, this.turnModel, content.map((a) => a.block));
    p.catch(() => undefined);
    this.keys?.start(
      {
        onInterrupt: () => {
          if (++interrupts === 1) this.interrupt();
          else quit();
        },
        onTypeahead: (t) => this.r.setFooter(t),
        onSubmit: (line) => {
          if (line === "/cancel") {
            interrupts = Math.max(interrupts, 1);
            this.interrupt();
          } else if (line === "/exit" || line === "/quit") {
            void this.session.cancel();
            quit();
          } else {
            this.queued.push(line);
            this.r.note(`queued for after this turn: ${line}`);
          }
        },
      },
      this.typedAhead,
    );
    try {
      const outcome = await Promise.race([p, quitting]);
      if (outcome === "quit") {
        this.r.turnEnded({ stopReason: "cancelled" }, "(ending the session)");
        return "quit";
      }
      this.r.turnEnded(outcome);
      this.lastExit = exitFor(outcome);
      return outcome.stopReason === "cancelled" ? "cancelled" : "done";
    } catch (e) {
      this.r.failed(e, "the turn");
      const code = describeError(e).code;
      // A one-shot run's error also goes to stderr (the exit status's reason, for scripts).
      if (!this.interactiveMode) process.stderr.write(`a4aa run: ${describeError(e).message}\n`);
      return (ERROR_CODES as Partial<Record<string, ErrorCodeInfo>>)[code]?.endsSession ? "fatal" : "error";
    } finally {
      this.typedAhead = this.keys?.stop() ?? "";
      this.inTurn = false;
      this.turnCancel = undefined;
    }
  }

  private async ask(req: PermissionRequest): Promise<PermissionResponse> {
    const keys = optionKeys(req.options);
    this.r.askPermission(req, keys);
    const a = await this.keys!.ask(keys);
    if (typeof a === "number") {
      this.r.permissionAnswered(req, req.options[a].name, "you");
      return { selected: req.options[a].optionId };
    }
    this.r.permissionAnswered(req, "cancelled", a === "interrupt" ? "Ctrl-C" : "Esc");
    return { cancelled: true };
  }

  /** Runs one of our `/` commands; "prompt" when it is none of them (the agent's own, e.g. Claude's). */
  private async command(line: string): Promise<"exit" | "ok" | "prompt"> {
    const [name, ...rest] = line.split(/\s+/);
    const arg = rest.join(" ");
    const open = this.session.open!;
    switch (name) {
      case "/exit":
      case "/quit":
        return "exit";
      case "/help":
        this.r.note(
          [
            "/attach FILE  send FILE (an image, or a text file's contents) with the next prompt",
            "/mode [ID]    show the agent's modes, or switch to ID",
            "/model [ID]   show the models, or use ID for the next turns",
            "/cancel       cancel the running turn (type it while the turn runs; Ctrl-C does the same)",
            "/exit         end the session (also Ctrl-D at the prompt)",
            "/help         this list",
            "Any other /command goes to the agent as a prompt.",
          ].join("\n"),
        );
        return "ok";
      case "/cancel":
        this.r.note("no turn is running (while one runs, Ctrl-C or /cancel cancels it)");
        return "ok";
      case "/attach": {
        if (!arg) {
          this.r.note(this.pending.length ? `attached to the next prompt: ${this.pending.map((a) => a.label).join(", ")}` : "usage: /attach FILE (an image or a text file)");
          return "ok";
        }
        try {
          const block = attachment(arg, process.cwd());
          const kind = block.type === "image" ? "image" : "resource";
          if (!open.capabilities.content[kind]) {
            this.r.note(`${arg} not attached: this agent takes no ${kind === "image" ? "images" : "embedded files"} (capabilities.content)`);
            return "ok";
          }
          this.pending.push({ block, label: describeAttachment(arg, block) });
          this.r.note(`attached to the next prompt: ${this.pending.map((a) => a.label).join(", ")}`);
        } catch (e) {
          if (!(e instanceof AttachError)) throw e;
          this.r.note(e.message);
        }
        return "ok";
      }
      case "/model": {
        const models = offered(open.sessionState, "model");
        if (!arg) {
          this.r.note(`model: ${this.turnModel ?? models.current ?? this.o.options.model ?? "the agent's default"}${models.ids.length ? ` (offered: ${models.ids.join(", ")})` : ""}`);
          return "ok";
        }
        if (!open.capabilities.selectors.model) {
          this.r.note("this agent takes no model selector through a4aa");
          return "ok";
        }
        this.turnModel = arg;
        this.r.note(`the next turns use model ${arg}`);
        return "ok";
      }
      case "/mode": {
        const modes = offered(open.sessionState, "mode");
        if (!arg) {
          this.r.note(`mode: ${this.r.currentMode ?? this.o.options.mode ?? "the agent's default"}${modes.ids.length ? ` (offered: ${modes.ids.join(", ")})` : ""}`);
          return "ok";
        }
        if (!open.capabilities.selectors.mode) {
          this.r.note("this agent takes no mode selector through a4aa");
          return "ok";
        }
        const native = this.r.nativeSessionId;
        if (!open.capabilities.resume || !native) {
          this.r.note(`this session cannot be continued in another mode; start again with --mode ${arg}`);
          return "ok";
        }
        // The protocol sets the mode at open: continue the agent's own session in the new mode.
        this.replaying = true;
        try {
          await this.session.closeSession();
          const o = { ...this.o, resume: native, options: { ...this.o.options, mode: arg } };
          await this.session.openSession(o);
          await new Promise((r) => setImmediate(r));
          this.r.currentMode = arg;
          this.r.note(`mode is now ${arg} (session ${this.session.sessionId}, the same conversation)`);
        } catch (e) {
          this.r.failed(e, `switching to mode ${arg}`);
          if (!this.session.open) return "exit";
        } finally {
          this.replaying = false;
        }
        return "ok";
      }
      default:
        return "prompt";
    }
  }
}

/** The ids an agent offered for a selector and the current one, read as the sidecar reads them (the client's session-state helpers). */
function offered(state: SessionState | null, kind: "mode" | "model"): { ids: string[]; current?: string } {
  if (!state) return { ids: [] };
  return { ids: offeredValues(state, kind), current: currentSelectorValue(state, kind) };
}
