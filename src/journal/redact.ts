// R-REC-1: the one redaction function. The environment boundary feeds it every literal
// value a session hands an agent (spec `set`, open `env`; later catalog credentials, MCP
// env and headers); transcripts and logs at every level pass through it.

/** Values shorter than this are not credentials, and replacing them would garble every text. */
export const MIN_REDACTED_LENGTH = 4;

export class Redactor {
  /** value → name; longest values first when replacing. */
  private readonly secrets = new Map<string, string>();
  private ordered: [string, string][] = [];

  /** Adds literal values to hide, as `NAME → value`. */
  add(literals: Iterable<readonly [name: string, value: string]>): void {
    let changed = false;
    for (const [name, value] of literals) {
      if (value.length < MIN_REDACTED_LENGTH || this.secrets.has(value)) continue;
      this.secrets.set(value, name);
      // A value quoted inside a JSON string (a raw payload) is hidden in its escaped form too.
      const escaped = JSON.stringify(value).slice(1, -1);
      if (escaped !== value) this.secrets.set(escaped, name);
      changed = true;
    }
    if (changed) this.ordered = [...this.secrets.entries()].sort((a, b) => b[0].length - a[0].length);
  }

  get size(): number {
    return this.secrets.size;
  }

  /** `text` with every known value replaced by `<redacted:NAME>`. */
  redact = (text: string): string => {
    for (const [value, name] of this.ordered) {
      if (text.includes(value)) text = text.split(value).join(`<redacted:${name}>`);
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
}

/** The sidecar's redactor: logs and transcripts of every session share it. */
export const secrets = new Redactor();
