// The base of the deliberately broken implementations: runs the real `a4aa serve` behind
// a line proxy whose hooks mutate the traffic or the process behaviour. Lines a hook does
// not touch pass through byte for byte.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const REAL = path.resolve(here, "../../../src/cli/main.js");
const PARSE_LIMIT = 1024 * 1024;

export interface ProxyApi {
  toHost(msg: unknown): void;
  toSidecar(msg: unknown): void;
  child: ChildProcess;
}

export interface ProxyHooks {
  /** Flags added to the real sidecar's command line. */
  extraArgs?: string[];
  /** A message from the host; return false to drop it, or an object to send instead. */
  fromHost?(msg: any, api: ProxyApi): boolean | object | void;
  fromSidecar?(msg: any, api: ProxyApi): boolean | object | void;
  /** Lines up to this many bytes are parsed for the hooks (default 1 MiB). */
  parseLimit?: number;
  /** The host closed stdin; default: close the sidecar's stdin. */
  onHostEof?(api: ProxyApi): void;
}

function lines(stream: NodeJS.ReadableStream, onLine: (b: Buffer) => void, onEnd: () => void): void {
  let chunks: Buffer[] = [];
  stream.on("data", (c: Buffer) => {
    let start = 0;
    for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, start)) {
      chunks.push(c.subarray(start, i));
      onLine(Buffer.concat(chunks));
      chunks = [];
      start = i + 1;
    }
    if (start < c.length) chunks.push(c.subarray(start));
  });
  stream.on("end", onEnd);
}

export function runProxy(hooks: ProxyHooks): void {
  const child = spawn(process.execPath, [REAL, "serve", ...(hooks.extraArgs ?? []), ...process.argv.slice(2)], { stdio: ["pipe", "pipe", "inherit"] });
  const api: ProxyApi = {
    child,
    toHost: (m) => process.stdout.write(JSON.stringify(m) + "\n"),
    toSidecar: (m) => child.stdin!.write(JSON.stringify(m) + "\n"),
  };
  child.stdin!.on("error", () => undefined);
  const pass = (hook: ProxyHooks["fromHost"], out: (b: Buffer) => void, send: (m: unknown) => void) => (b: Buffer) => {
    let msg: unknown;
    if (hook && b.length < (hooks.parseLimit ?? PARSE_LIMIT)) {
      try {
        msg = JSON.parse(b.toString("utf8"));
      } catch {
        msg = undefined;
      }
    }
    const r = msg !== undefined && msg !== null && typeof msg === "object" ? hook!(msg, api) : undefined;
    if (r === false) return;
    if (r && typeof r === "object") return send(r);
    out(b);
  };
  lines(
    process.stdin,
    pass(hooks.fromHost, (b) => child.stdin!.write(Buffer.concat([b, Buffer.from("\n")])), api.toSidecar),
    () => (hooks.onHostEof ? hooks.onHostEof(api) : child.stdin!.end()),
  );
  lines(child.stdout!, pass(hooks.fromSidecar, (b) => process.stdout.write(Buffer.concat([b, Buffer.from("\n")])), api.toHost), () => undefined);
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => child.kill(sig));
  child.on("exit", (code) => {
    process.exitCode = code ?? 1;
    process.stdout.end();
  });
}
