// R-REC-1: the one redaction function. The session layer feeds it the secrets a session
// hands an agent — the `set` values and credentials the host gave, open `env`, MCP env and
// header values (and the token of a `Bearer`/`Basic` header) — never a catalog entry's own
// settings; transcripts and logs at every level pass through it. Every value is replaced
// by the one marker, `<redacted>` (the one the open result shows credentials as).

/** Values shorter than this are not credentials, and replacing them would garble every text. */
export const MIN_REDACTED_LENGTH = 4;

/** What a redacted value is replaced by, everywhere (transcripts, logs, open results). */
import { REDACTED } from "../env/redacted.js";
export { REDACTED };

export class Redactor {
  private readonly secrets = new Set<string>();
  /** Longest values first when replacing. */
  private ordered: string[] = [];
  private longest = 0;

  /** Adds literal values to hide, as `NAME → value` (the name says where it came from). */
  add(literals: Iterable<readonly [name: string, value: string]>): void {
    let changed = false;
    for (const [, value] of literals) {
      if (value.length < MIN_REDACTED_LENGTH || this.secrets.has(value)) continue;
      this.secrets.add(value);
      // A value quoted inside a JSON string (a raw payload) is hidden in its escaped form too.
      const escaped = JSON.stringify(value).slice(1, -1);
      if (escaped !== value) this.secrets.add(escaped);
      changed = true;
    }
    if (changed) {
      this.ordered = [...this.secrets].sort((a, b) => b.length - a.length);
      this.longest = this.ordered[0]?.length ?? 0;
    }
  }

  get size(): number {
    return this.secrets.size;
  }

  /** The longest value hidden (its escaped form included), in UTF-16 units. */
  get maxLength(): number {
    return this.longest;
  }

  /** `text` with every known value replaced by `<redacted>`. */
  redact = (text: string): string => {
    for (const value of this.ordered) {
      if (text.includes(value)) text = text.split(value).join(REDACTED);
    }
    return text;
  };

  /** A copy of a JSON value with every string (and key) redacted. */
  redactValue = (v: unknown): unknown => {
    if (!this.ordered.length) return v;
    if (typeof v === "string") return this.redact(v);
    if (Array.isArray(v)) return v.map(this.redactValue);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[this.redact(k)] = this.redactValue(x);
      return out;
    }
    return v;
  };

  /**
   * Redaction of a text that comes in pieces (PTY output): a secret split across two
   * pieces is still hidden. `push` returns what can be written now; it keeps back at most
   * the last 2 × (longest secret − 1) characters — a tail that may begin a secret — until
   * the next piece or `end`.
   */
  stream(): { push(piece: string): string; end(): string } {
    let held = "";
    return {
      push: (piece) => {
        const text = held + piece;
        const keep = this.longest - 1;
        if (keep <= 0) {
          held = "";
          return this.redact(text);
        }
        let cut = Math.max(0, text.length - keep);
        // A secret that begins before the cut and ends after it is kept back whole.
        for (let moved = true; moved; ) {
          moved = false;
          for (const value of this.ordered) {
            const at = text.indexOf(value, Math.max(0, cut - value.length + 1));
            if (at !== -1 && at < cut) {
              cut = at;
              moved = true;
            }
          }
        }
        held = text.slice(cut);
        return this.redact(text.slice(0, cut));
      },
      end: () => {
        const rest = this.redact(held);
        held = "";
        return rest;
      },
    };
  }
}

/** The sidecar's redactor: logs and transcripts of every session share it. */
export const secrets = new Redactor();
