// Keys a person presses while a turn runs (the terminal in raw mode): Ctrl-C, the answer to a
// permission question, and a line typed ahead (`/cancel`, or the next prompt).
import { emitKeypressEvents } from "node:readline";
import type { PermissionOption, PermissionOptionKind } from "../../../generated/ts/types.js";

interface Key {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  sequence?: string;
}

export interface TurnKeys {
  onInterrupt(): void;
  onTypeahead(text: string): void;
  onSubmit(text: string): void;
}

type Answer = number | "cancel" | "interrupt";

const KIND_KEY: Record<PermissionOptionKind, string> = { allowOnce: "y", allowAlways: "a", rejectOnce: "n", rejectAlways: "x" };

/** One key per option the agent offered: y/a/n/x by kind, digits where a kind repeats. */
export function optionKeys(options: PermissionOption[]): string[] {
  const used = new Set<string>();
  return options.map((o, i) => {
    const k = KIND_KEY[o.kind];
    const key = k && !used.has(k) ? k : String(i + 1);
    used.add(key);
    return key;
  });
}

export class KeyInput {
  private handlers: TurnKeys | undefined;
  private buffer = "";
  private question: { keys: string[]; resolve: (a: Answer) => void } | undefined;
  private readonly onKey = (str: string | undefined, key: Key | undefined) => this.key(str, key ?? {});

  constructor(private readonly stdin: NodeJS.ReadStream) {
    emitKeypressEvents(stdin);
  }

  get active(): boolean {
    return this.handlers !== undefined;
  }

  start(h: TurnKeys, typedAhead = ""): void {
    this.handlers = h;
    this.buffer = typedAhead;
    this.stdin.setRawMode(true);
    this.stdin.on("keypress", this.onKey);
    this.stdin.resume();
  }

  /** Stops reading; returns what was typed ahead and not submitted. */
  stop(): string {
    this.stdin.off("keypress", this.onKey);
    this.stdin.setRawMode(false);
    this.stdin.pause();
    this.handlers = undefined;
    this.question?.resolve("cancel");
    this.question = undefined;
    const rest = this.buffer;
    this.buffer = "";
    return rest;
  }

  /** Waits for one of `keys` (its index), Esc ("cancel") or Ctrl-C ("interrupt"). */
  ask(keys: string[]): Promise<Answer> {
    this.question?.resolve("cancel");
    return new Promise((resolve) => {
      this.question = { keys, resolve };
    });
  }

  private key(str: string | undefined, key: Key): void {
    const h = this.handlers;
    if (!h) return;
    if (key.ctrl && key.name === "c") {
      const q = this.question;
      this.question = undefined;
      if (q) q.resolve("interrupt");
      return h.onInterrupt();
    }
    const q = this.question;
    if (q) {
      if (key.name === "escape") {
        this.question = undefined;
        return q.resolve("cancel");
      }
      let i = str ? q.keys.indexOf(str) : -1;
      if (i < 0 && str && /^[1-9]$/.test(str) && Number(str) <= q.keys.length) i = Number(str) - 1;
      if (i >= 0) {
        this.question = undefined;
        q.resolve(i);
      }
      return;
    }
    if (key.name === "return" || key.name === "enter") {
      const line = this.buffer.trim();
      this.buffer = "";
      h.onTypeahead("");
      if (line) h.onSubmit(line);
      return;
    }
    if (key.name === "backspace") {
      this.buffer = [...this.buffer].slice(0, -1).join("");
      return h.onTypeahead(this.buffer);
    }
    if (key.ctrl || key.meta || key.name === "escape" || !str || /[\u0000-\u001f\u007f]/.test(str)) return;
    this.buffer += str;
    h.onTypeahead(this.buffer);
  }
}
