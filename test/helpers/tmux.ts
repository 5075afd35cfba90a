// A person at a terminal, for tests: a command in a tmux pane on a private socket, keys sent
// with send-keys, the screen read with capture-pane. kill() ends the tmux server.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";

export function tmuxInstalled(): boolean {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class TmuxPane {
  readonly socket = `a4aa-test-${randomBytes(6).toString("hex")}`;

  /** Runs `argv` with `env` in a `cols`×`rows` pane; the pane stays after it exits, with "[exit N]". */
  constructor(argv: string[], opts: { env?: Record<string, string>; cols?: number; rows?: number; cwd?: string } = {}) {
    const env = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${quote(v)}`);
    const cmd = `${opts.cwd ? `cd ${quote(opts.cwd)} && ` : ""}env ${env.join(" ")} ${argv.map(quote).join(" ")}; echo "[exit $?]"; sleep 3600`;
    this.tmux("new-session", "-d", "-x", String(opts.cols ?? 100), "-y", String(opts.rows ?? 30), cmd);
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args], { encoding: "utf8", timeout: 10_000 });
  }

  /** Key names as tmux knows them: "Enter", "C-c", "C-d", "Escape". */
  keys(...keys: string[]): void {
    this.tmux("send-keys", ...keys);
  }

  /** Types text literally. */
  type(text: string): void {
    this.tmux("send-keys", "-l", text);
  }

  /** The visible screen, trailing spaces cut. */
  screen(): string {
    return this.tmux("capture-pane", "-p").replace(/[ \t]+$/gm, "").replace(/\n+$/, "\n");
  }

  /** The whole history and screen, wrapped lines joined. */
  history(): string {
    return this.tmux("capture-pane", "-p", "-J", "-S", "-").replace(/[ \t]+$/gm, "");
  }

  /** The visible screen with its colours and attributes as escape sequences. */
  tmuxScreenWithEscapes(): string {
    return this.tmux("capture-pane", "-p", "-e");
  }

  resize(cols: number, rows: number): void {
    this.tmux("resize-window", "-x", String(cols), "-y", String(rows));
  }

  /** Waits until the screen (or the history) matches; fails with what it shows. */
  async waitFor(re: RegExp, timeoutMs = 15_000, what = re.source): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = this.history();
      if (re.test(s)) return s;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${what} within ${timeoutMs} ms; it shows:\n${this.screen()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The command's exit status, once it has exited. */
  async exitCode(timeoutMs = 20_000): Promise<number> {
    const s = await this.waitFor(/\[exit (\d+)\]/, timeoutMs, "the command's exit");
    return Number(/\[exit (\d+)\]/.exec(s)![1]);
  }

  kill(): void {
    try {
      this.tmux("kill-server");
    } catch {
      // already gone
    }
  }
}
