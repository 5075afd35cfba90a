// R-REMOTE-2: `--auth-token-file FILE`, lines `NAME:TOKEN`. The bearer token of a WebSocket
// upgrade is compared with every line in constant time; NAME is the connection's tenant.
// Tokens are never logged, nor echoed in an error.
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";

export interface TokenFile {
  /** The tenant whose token `bearer` is, or undefined. */
  tenantOf(bearer: string): string | undefined;
  readonly size: number;
}

const NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** Reads and checks the file; throws an Error naming the line (never its token) when it is malformed. */
export function loadTokenFile(file: string): TokenFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`--auth-token-file ${JSON.stringify(file)}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const entries: { name: string; digest: Buffer }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    const token = colon > 0 ? line.slice(colon + 1) : "";
    if (!NAME.test(name) || token.length < 16 || /\s/.test(token)) {
      throw new Error(
        `--auth-token-file ${JSON.stringify(file)} line ${i + 1}: expected NAME:TOKEN (NAME of letters, digits, . _ @ -; TOKEN of at least 16 characters, no spaces)`,
      );
    }
    entries.push({ name, digest: digest(token) });
  });
  if (!entries.length) throw new Error(`--auth-token-file ${JSON.stringify(file)}: holds no NAME:TOKEN line`);
  return {
    size: entries.length,
    tenantOf(bearer: string) {
      // Digests have one length, so timingSafeEqual never throws; every line is compared.
      const d = digest(bearer);
      let found: string | undefined;
      for (const e of entries) if (timingSafeEqual(e.digest, d) && found === undefined) found = e.name;
      return found;
    },
  };
}

function digest(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** The token of an `Authorization: Bearer TOKEN` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m?.[1];
}
