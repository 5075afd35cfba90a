// Colours for a person's terminal, and only there: never into a pipe, never with NO_COLOR or
// --no-color (https://no-color.org); FORCE_COLOR turns them on for a pipe.
import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

export function wantColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv, noColorFlag: boolean): boolean {
  if (noColorFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== "")) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false") return true;
  return stream.isTTY === true && env.TERM !== "dumb";
}

export function colors(enabled: boolean): Colors {
  return pc.createColors(enabled);
}

/** Braille spinner frames (data, not escape codes). */
export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Seconds with one decimal: "3.4s". */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** 1234 → "1.2k", 999 → "999". */
export function count(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** Cuts plain text to `width` columns (with an ellipsis); one line only. */
export function fit(text: string, width: number): string {
  const one = text.replace(/\s*\n\s*/g, " ⏎ ");
  const chars = [...one];
  if (width <= 1) return chars.slice(0, Math.max(0, width)).join("");
  return chars.length <= width ? one : chars.slice(0, width - 1).join("") + "…";
}
