// `--listen ADDR` (R-REMOTE-1): ws://HOST:PORT[/PATH], wss://HOST:PORT[/PATH], unix:PATH.
import path from "node:path";
import { isIP } from "node:net";

export type ListenAddress =
  | { kind: "ws" | "wss"; host: string; port: number; path?: string; text: string }
  | { kind: "unix"; path: string; text: string };

/** Parses one --listen value; throws an Error saying what is wrong. */
export function parseListenAddress(text: string): ListenAddress {
  if (text.startsWith("unix:")) {
    const p = text.slice("unix:".length);
    if (!p) throw new Error(`--listen ${JSON.stringify(text)}: unix: needs a path, e.g. unix:/run/a4aa/a4aa.sock`);
    return { kind: "unix", path: path.resolve(p), text };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--listen ${JSON.stringify(text)}: not ws://HOST:PORT[/PATH], wss://HOST:PORT[/PATH] or unix:PATH`);
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw new Error(`--listen ${JSON.stringify(text)}: the scheme must be ws, wss or unix, not ${url.protocol.replace(/:$/, "")}`);
  }
  // URL drops a scheme's default port (80, 443): read it from the text.
  const port = url.port || /^wss?:\/\/(?:\[[^\]]*\]|[^/:]*):(\d+)/i.exec(text)?.[1];
  if (!port) throw new Error(`--listen ${JSON.stringify(text)}: name the port, e.g. ws://127.0.0.1:7700`);
  if (url.username || url.password || url.search || url.hash) {
    throw new Error(`--listen ${JSON.stringify(text)}: only a host, a port and a path are allowed (tokens go in --auth-token-file)`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    kind: url.protocol === "wss:" ? "wss" : "ws",
    host,
    port: Number(port),
    path: url.pathname && url.pathname !== "/" ? url.pathname : undefined,
    text,
  };
}

/** Whether a host name or address only reaches this machine. */
export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  const v = isIP(host);
  if (v === 4) return host.startsWith("127.");
  if (v === 6) return host === "::1" || /^::ffff:127\./i.test(host);
  return false;
}
