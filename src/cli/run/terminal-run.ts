// `a4aa run` on a terminal: one turn, or an interactive session (prompts, slash commands,
// permission questions answered by key, cancel with Ctrl-C).
// Over 350 lines: one class; the prompt loop, turns, permissions and / commands share its screen, keys and session.
import type { PermissionRequest, PermissionResponse } from "../../../clients/ts/index.js";
import { ERROR_CODES, type ErrorCodeInfo } from "../../../generated/ts/errors.js";
import { AttachError, attachment, describeAttachment } from "./attachments.js";
import { EXIT, exitFor } from "./exit-codes.js";
import { failClosed } from "./fail-closed.js";
import { describeError } from "./hints.js";
import { KeyInput, optionKeys } from "./keys.js";
import { COMMANDS_HELP, type RunOptions } from "./options.js";
import { resumeFlags } from "./resume-hint.js";
import { readPromptLine } from "./prompt-line.js";
import { Renderer } from "./renderer.js";
import { PlainScreen, TtyScreen, type Screen, sameDestination } from "./screen.js";
import { type LateHooks, RunSession, offered } from "./session.js";
import { colors, wantColor } from "./style.js";

type TurnEnd = "done" | "cancelled" | "error" | "fatal" | "quit";

export class TerminalRun {
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

  /** `session` was started with `hooks` before this run's modules were loaded; this sets their target. */
  constructor(
    private readonly o: RunOptions,
    session: RunSession,
    hooks: LateHooks,
  ) {
    this.pending = [...o.attachments];
    const out = process.stdout;
    this.screen = out.isTTY ? new TtyScreen(out) : new PlainScreen(out);
    this.r = new Renderer(this.screen, colors(wantColor(out, process.env, o.noColor)));
    this.r.budget = o.options.budget;
    this.keys = process.stdin.isTTY ? new KeyInput(process.stdin) : undefined;
    const refuse = failClosed(o, (t) => {
      this.screen.flush();
      process.stderr.write(t);
    });
    this.session = session;
    hooks.target = {
      onEvent: (sid, e) => {
        if (sid === this.session.sessionId && !this.replaying) this.r.event(e);
      },
      onPermission: (req) => (this.keys?.active ? this.ask(req) : refuse(req)),
      onSidecarLog: (t) => (this.screen.live ? this.r.note(t.trimEnd()) : process.stderr.write(t)),
    };
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
    const status = await this.session.end(this.detached || !!this.o.session);
    if (status.code !== 0 && status.signal !== "SIGINT") {
      process.stderr.write(`a4aa run: the sidecar exited ${status.code ?? status.signal} (some agent process may not have been cleaned up)\n`);
      if (code === EXIT.ok) code = EXIT.error;
    }
    if (this.screen instanceof TtyScreen) this.screen.close();
    return code;
  }

  private async open(): Promise<boolean> {
    try {
      if (this.o.session) {
        await this.session.attachSession(this.o.session, (s) => {
          const running = s.state === "turn" ? "; a turn is running (Ctrl-C cancels it, twice leaves)" : "";
          this.r.note(`attached to session ${s.sessionId} (${s.agent}, in ${s.cwd}; ${s.attached} other host${s.attached === 1 ? "" : "s"} attached)${running}; the conversation so far:`);
        });
      } else {
        await this.session.openSession(this.o, (open) => {
          this.r.opened(open, this.o.label);
          if (this.o.resume) this.r.note("the conversation so far:");
        });
      }
      await new Promise((r) => setImmediate(r));
      this.r.endStream();
      return true;
    } catch (e) {
      // Before protocol 1.2 the sidecar knows no catalog: `agent` is an unknown field there.
      const noCatalog = "agent" in this.o.target && describeError(e).code === "invalid_params" && /"spec"|agent/.test(String((e as Error).message));
      this.r.failed(e, this.o.session ? `attaching to session ${this.o.session}` : `opening ${this.o.label}`, noCatalog ? "this a4aa serve has no agents catalog (protocol 1.2); pass the agent as --spec FILE|JSON" : describeError(e, this.session.credentials).hint);
      this.screen.pause();
      // The reason again on stderr for scripts, unless both go to the same terminal (printed twice).
      if (!sameDestination()) process.stderr.write(`a4aa run: ${describeError(e).message}\n`);
      return false;
    }
  }

  private async oneShot(prompt: string): Promise<number> {
    if (!(await this.open())) return EXIT.error;
    const end = await this.turn(prompt);
    return end === "done" ? this.lastExit : end === "cancelled" || end === "quit" ? EXIT.cancelled : EXIT.error;
  }

  private lastExit: number = EXIT.ok;
  /** /detach: leave the session running on the sidecar at --connect. */
  private detached = false;
  private interactiveMode = false;

  private async interactive(): Promise<number> {
    this.interactiveMode = true;
    if (!(await this.open())) return EXIT.error;
    if (this.session.attached?.state === "turn") await this.othersTurn();
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

  /** Attached while another host's turn runs: its events, until the session is idle. */
  private async othersTurn(): Promise<void> {
    this.inTurn = true;
    this.sigints = 0;
    try {
      await this.session.untilIdle();
    } finally {
      this.inTurn = false;
    }
    this.r.endStream();
  }

  private goodbye(): void {
    const open = this.session.open;
    const native = this.r.nativeSessionId;
    if (this.detached || this.o.session) {
      this.r.note(`left session ${this.session.sessionId} running; come back with: a4aa run --connect ${this.o.connect!.url} --session ${this.session.sessionId}`);
    } else if (open?.capabilities.resume && native) this.r.note(`session ended; continue it with: a4aa run${resumeFlags(this.o, process.cwd())} --resume ${native}`);
    else this.r.note("session ended");
    this.screen.flush();
  }

  private async readLine(): Promise<string | "eof" | "interrupt"> {
    const got = await readPromptLine(this.history, this.r.c.cyan("› "), this.typedAhead);
    this.typedAhead = "";
    return got;
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
      this.r.failed(e, "the turn", describeError(e, this.session.credentials).hint);
      const code = describeError(e).code;
      // A one-shot run's error also goes to stderr (the exit status's reason, for scripts).
      if (!this.interactiveMode && !sameDestination()) process.stderr.write(`a4aa run: ${describeError(e).message}\n`);
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
    const open = this.session.open;
    if (!open && ["/attach", "/model", "/mode"].includes(name!)) {
      this.r.note(`${name} is not available on a session this run attached to (its capabilities are known to the host that opened it)`);
      return "ok";
    }
    switch (name) {
      case "/exit":
      case "/quit":
        return "exit";
      case "/detach":
        if (!this.o.connect) {
          this.r.note("/detach leaves a session running on a sidecar reached with --connect; this one ends with a4aa run");
          return "ok";
        }
        this.detached = true;
        return "exit";
      case "/help":
        this.r.note(COMMANDS_HELP);
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
          if (!open!.capabilities.content[kind]) {
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
        const models = offered(open!.sessionState, "model");
        if (!arg) {
          this.r.note(`model: ${this.turnModel ?? models.current ?? this.o.options.model ?? "the agent's default"}${models.ids.length ? ` (offered: ${models.ids.join(", ")})` : ""}`);
          return "ok";
        }
        if (!open!.capabilities.selectors.model) {
          this.r.note("this agent takes no model selector through a4aa");
          return "ok";
        }
        this.turnModel = arg;
        this.r.note(`the next turns use model ${arg}`);
        return "ok";
      }
      case "/mode": {
        const modes = offered(open!.sessionState, "mode");
        if (!arg) {
          this.r.note(`mode: ${this.r.currentMode ?? this.o.options.mode ?? "the agent's default"}${modes.ids.length ? ` (offered: ${modes.ids.join(", ")})` : ""}`);
          return "ok";
        }
        if (!open!.capabilities.selectors.mode) {
          this.r.note("this agent takes no mode selector through a4aa");
          return "ok";
        }
        const native = this.r.nativeSessionId;
        if (!open!.capabilities.resume || !native) {
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
