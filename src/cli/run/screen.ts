// Where the renderer's output goes. On a terminal: lines that stay (the scrollback) above a
// few lines that redraw in place (the paragraph being streamed, tool calls in flight, the
// spinner, a permission prompt), drawn by log-update. Into a pipe: plain text, in order.
import { fstatSync } from "node:fs";
import ansiEscapes from "ansi-escapes";
import { createLogUpdate } from "log-update";
import wrapAnsi from "wrap-ansi";
import { fit } from "./style.js";

type Style = (s: string) => string;
const plain: Style = (s) => s;

export interface Screen {
  /** True on a terminal: status lines redraw; false in a pipe: they are not shown. */
  readonly live: boolean;
  columns(): number;
  /** Streamed text as it comes (a reply, a thought), coloured by `style`. */
  stream(text: string, style?: Style): void;
  /** Ends the streamed paragraph, if one is open. */
  endStream(): void;
  /** A line that stays; ends an open stream first. */
  line(text: string): void;
  /** The lines that redraw under the output (terminal only); `[]` removes them. */
  setStatus(lines: string[]): void;
  /** Writes what is waiting now. */
  flush(): void;
  /** Removes the status lines and shows the cursor, before someone else writes (a readline). */
  pause(): void;
}

/** Into a pipe or a file: no redraws, no status lines. */
export class PlainScreen implements Screen {
  readonly live = false;
  private open = false;
  constructor(private readonly out: NodeJS.WritableStream) {}
  // A log is read later, maybe wider: cut only what is absurdly long.
  columns(): number {
    return 240;
  }
  stream(text: string, style: Style = plain): void {
    if (!text) return;
    this.out.write(style(text));
    this.open = !text.endsWith("\n");
  }
  endStream(): void {
    if (this.open) this.out.write("\n");
    this.open = false;
  }
  line(text: string): void {
    this.endStream();
    this.out.write(`${text}\n`);
  }
  setStatus(): void {}
  flush(): void {}
  pause(): void {
    this.endStream();
  }
}

/**
 * On a terminal. Every line drawn is cut or wrapped to the width, so the number of rows
 * log-update must erase is known; after a resize the old rows are erased as the terminal
 * re-flowed them (wider rows take more rows when it narrows).
 */
export class TtyScreen implements Screen {
  readonly live = true;
  private draw: ReturnType<typeof createLogUpdate>;
  private partial = "";
  private partialStyle: Style = plain;
  private status: string[] = [];
  private commits: string[] = [];
  /** Visible width of each row drawn last, to know how a resize re-flowed them. */
  private drawnWidths: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly onResize = () => this.resized();

  constructor(private readonly out: NodeJS.WriteStream) {
    this.draw = createLogUpdate(out);
    out.on("resize", this.onResize);
  }

  columns(): number {
    return Math.max(10, this.out.columns || 80);
  }

  stream(text: string, style: Style = plain): void {
    if (!text) return;
    this.partialStyle = style;
    const parts = (this.partial + text).split("\n");
    this.partial = parts.pop() ?? "";
    for (const l of parts) this.commitWrapped(l, style);
    // A paragraph longer than a row: its full rows go to the scrollback, the last one redraws.
    const { rows, rest } = fullRows(this.partial, this.columns() - 1);
    for (const r of rows) this.commits.push(style(r));
    this.partial = rest;
    this.schedule();
  }

  endStream(): void {
    if (this.partial) this.commitWrapped(this.partial, this.partialStyle);
    this.partial = "";
    this.schedule();
  }

  line(text: string): void {
    this.endStream();
    // Word-wrapped here (colours kept): log-update alone would cut words at the edge.
    this.commits.push(wrapAnsi(text, this.columns() - 1, { hard: true, trim: false }));
    this.schedule();
  }

  setStatus(lines: string[]): void {
    this.status = lines;
    this.schedule();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.commits.length) {
      this.draw.persist(this.commits.join("\n"));
      this.commits = [];
      this.drawnWidths = [];
    }
    const frame = [...(this.partial ? [this.partialStyle(this.partial)] : []), ...this.status.map((l) => l)];
    if (frame.length) {
      this.draw(frame.join("\n"));
      this.drawnWidths = [...(this.partial ? [[...this.partial].length] : []), ...this.status.map(visibleWidth)];
    } else if (this.drawnWidths.length) {
      this.draw.clear();
      this.drawnWidths = [];
    }
  }

  pause(): void {
    this.endStream();
    this.status = [];
    this.flush();
    this.draw.clear();
    this.draw.done();
    this.drawnWidths = [];
  }

  /** Stops listening for resizes (the screen is done). */
  close(): void {
    this.pause();
    this.out.off("resize", this.onResize);
  }

  private commitWrapped(text: string, style: Style): void {
    const { rows, rest } = fullRows(text, this.columns() - 1);
    for (const r of [...rows, rest]) this.commits.push(style(r));
  }

  private schedule(): void {
    // Chunks come in bursts: one redraw per 30 ms is smooth and cheap.
    this.timer ??= setTimeout(() => this.flush(), 30);
  }

  private resized(): void {
    if (!this.drawnWidths.length) return;
    const cols = this.columns();
    const rows = this.drawnWidths.reduce((n, w) => n + Math.max(1, Math.ceil(w / cols)), 0);
    this.out.write(ansiEscapes.eraseLines(rows + 1));
    this.draw = createLogUpdate(this.out);
    this.drawnWidths = [];
    this.flush();
  }
}

/** Cuts status lines to the width, so that none wraps. */
export function fitLines(lines: string[], width: number): string[] {
  return lines.map((l) => fit(l, width));
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
function visibleWidth(s: string): number {
  return [...s.replace(ANSI, "")].length;
}

/**
 * Word-wraps `text` at `width` columns: the rows that are complete (nothing appended later can
 * change them) and the rest, still open.
 */
export function fullRows(text: string, width: number): { rows: string[]; rest: string } {
  const rows: string[] = [];
  let rest = text;
  const w = Math.max(1, width);
  while ([...rest].length > w) {
    const chars = [...rest];
    const head = chars.slice(0, w + 1).join("");
    const cut = head.lastIndexOf(" ");
    if (cut > 0) {
      rows.push(head.slice(0, cut));
      rest = rest.slice(cut + 1);
    } else {
      rows.push(chars.slice(0, w).join(""));
      rest = chars.slice(w).join("");
    }
  }
  return { rows, rest };
}

/** stdout and stderr reach the same place (both a terminal, or one file or pipe as with
 * `2>&1`): what the screen printed, the person reads; an error is not printed again. */
export function sameDestination(): boolean {
  if (process.stdout.isTTY && process.stderr.isTTY) return true;
  try {
    const out = fstatSync(1);
    const err = fstatSync(2);
    return out.dev === err.dev && out.ino === err.ino;
  } catch {
    return false;
  }
}
