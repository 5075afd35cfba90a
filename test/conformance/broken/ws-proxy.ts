// The base of the deliberately broken *listening* implementations (§15): runs the real
// `a4aa serve` listening on a private loopback port, and itself listens where the suite
// asked (`--listen ws://127.0.0.1:PORT`), relaying each upgrade (with its Authorization and
// Origin, so the real one judges them unless a hook says otherwise), each message and each
// plain HTTP request. Hooks mutate the traffic. unix: listeners go to the real one as asked.
import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket, { WebSocketServer } from "ws";
import { freePort } from "../harness/remote.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const REAL = path.resolve(here, "../../../src/cli/main.js");

export interface LinkApi {
  toHost(msg: unknown): void;
  toSidecar(msg: unknown): void;
  /** Per-connection scratch space for the hooks. */
  state: Record<string, any>;
}

export interface WsProxyHooks {
  /** The headers the upstream upgrade carries (default: the client's Authorization and Origin). */
  upstreamHeaders?(client: http.IncomingHttpHeaders, tokens: string[]): Record<string, string>;
  /** A message from the host; false drops it, an object is sent instead. */
  fromHost?(msg: any, api: LinkApi): boolean | object | void;
  fromSidecar?(msg: any, api: LinkApi): boolean | object | void;
  /** The host's connection ended (before the upstream one is closed). */
  onHostGone?(api: LinkApi): Promise<void> | void;
}

/** The tokens of `--auth-token-file` (their order), for hooks that forge an upgrade. */
async function tokensOf(argv: string[]): Promise<string[]> {
  const i = argv.indexOf("--auth-token-file");
  if (i < 0) return [];
  const { readFileSync } = await import("node:fs");
  return readFileSync(argv[i + 1]!, "utf8")
    .split("\n")
    .filter((l) => l.includes(":"))
    .map((l) => l.slice(l.indexOf(":") + 1).trim());
}

export async function runWsProxy(hooks: WsProxyHooks): Promise<void> {
  const argv = process.argv.slice(2);
  const outer: number[] = [];
  const realArgs: string[] = [];
  const inner = await freePort();
  for (let i = 0; i < argv.length; i++) {
    const m = argv[i] === "--listen" ? /^ws:\/\/127\.0\.0\.1:(\d+)/.exec(argv[i + 1] ?? "") : null;
    if (m) {
      outer.push(Number(m[1]));
      i++;
    } else realArgs.push(argv[i]!);
  }
  if (outer.length) realArgs.push("--listen", `ws://127.0.0.1:${inner}`);
  const tokens = await tokensOf(argv);
  const child = spawn(process.execPath, [REAL, "serve", ...realArgs], { stdio: ["pipe", "inherit", "inherit"] });
  process.stdin.pipe(child.stdin!);
  child.stdin!.on("error", () => undefined);
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => child.kill(sig));
  const servers: http.Server[] = [];
  child.on("exit", (code) => {
    for (const s of servers) s.closeAllConnections?.(), s.close();
    process.exit(code ?? 1);
  });
  // Wait for the real listener before opening ours (a check waits for ours).
  for (let up = false; outer.length && !up; ) {
    up = await new Promise<boolean>((r) => net.connect(inner, "127.0.0.1").once("connect", function (this: net.Socket) { this.destroy(); r(true); }).once("error", () => r(false)));
    if (!up) await new Promise((r) => setTimeout(r, 50));
  }
  const wss = new WebSocketServer({ noServer: true, maxPayload: 80 * 1024 * 1024 });
  for (const port of outer) {
    const server = http.createServer((req, res) => {
      const up = http.request({ host: "127.0.0.1", port: inner, path: req.url, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on("error", () => res.writeHead(502).end());
      req.pipe(up);
    });
    server.on("upgrade", (req, socket, head) => {
      const headers = hooks.upstreamHeaders?.(req.headers, tokens) ?? {
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        ...(req.headers.origin ? { origin: req.headers.origin } : {}),
      };
      const upstream = new WebSocket(`ws://127.0.0.1:${inner}${req.url ?? "/"}`, { headers, maxPayload: 80 * 1024 * 1024 });
      upstream.once("unexpected-response", (_q, r) => {
        socket.end(`HTTP/1.1 ${r.statusCode} ${r.statusMessage}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
        upstream.terminate();
      });
      upstream.once("error", () => socket.destroy());
      upstream.once("open", () => wss.handleUpgrade(req, socket, head, (client) => link(client, upstream, hooks)));
    });
    server.listen(port, "127.0.0.1");
    servers.push(server);
  }
}

function link(client: WebSocket, upstream: WebSocket, hooks: WsProxyHooks): void {
  const api: LinkApi = {
    toHost: (m) => client.send(JSON.stringify(m)),
    toSidecar: (m) => upstream.send(JSON.stringify(m)),
    state: {},
  };
  const relay = (hook: WsProxyHooks["fromHost"], to: WebSocket) => (data: WebSocket.RawData) => {
    const text = Array.isArray(data) ? Buffer.concat(data).toString("utf8") : data.toString();
    let msg: unknown;
    try {
      msg = hook ? JSON.parse(text) : undefined;
    } catch {
      msg = undefined;
    }
    const r = msg && typeof msg === "object" ? hook!(msg, api) : undefined;
    if (r === false) return;
    to.send(r && typeof r === "object" ? JSON.stringify(r) : text);
  };
  client.on("message", relay(hooks.fromHost, upstream));
  upstream.on("message", relay(hooks.fromSidecar, client));
  const codeOk = (c: number) => c === 1000 || (c >= 1001 && c <= 1014 && c !== 1004 && c !== 1005 && c !== 1006) || (c >= 3000 && c < 5000);
  client.on("close", async () => {
    await hooks.onHostGone?.(api);
    upstream.terminate();
  });
  upstream.on("close", (code, reason) => (codeOk(code) ? client.close(code, reason) : client.terminate()));
  client.on("error", () => undefined);
  upstream.on("error", () => undefined);
}
