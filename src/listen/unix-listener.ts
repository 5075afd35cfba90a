// A unix-socket listener (R-REMOTE-1): NDJSON exactly as on stdio. The socket is created
// mode 0600 in a directory the sidecar owns (created 0700 when missing); a stale socket left
// by an earlier run is replaced, anything else at the path is refused.
import { lstatSync, mkdirSync, unlinkSync, chmodSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Logger } from "../log.js";
import type { AcceptedLink, Listener } from "../server/server.js";
import { boundedOutput } from "./outbound.js";

export interface UnixListenerOptions {
  path: string;
  text: string;
  logger: Logger;
  maxOutboundBytes: number;
}

export class UnixListener implements Listener {
  readonly address: string;
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private seq = 0;

  constructor(private readonly o: UnixListenerOptions) {
    this.address = o.text;
  }

  async start(accept: (link: AcceptedLink) => void): Promise<void> {
    const { o } = this;
    const dir = path.dirname(o.path);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) {
      throw new Error(`--listen ${o.text}: the directory ${dir} must be a directory the sidecar's user owns, writable by no one else`);
    }
    await removeStale(o.path, o.text);
    const server = net.createServer((socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("error", (e) => o.logger.info(`${name}: ${e.message}`));
      const name = `unix#${++this.seq}`;
      const output = boundedOutput(
        {
          send: (text) => void socket.write(text),
          pending: () => socket.writableLength,
          slow: () => {
            o.logger.warn(`${name}: more than ${o.maxOutboundBytes} bytes waiting to be sent; closing it (slow_consumer), its sessions detach`);
            socket.destroy();
          },
        },
        o.maxOutboundBytes,
        false,
      );
      socket.on("close", () => output.destroy());
      accept({ input: socket, output, tenant: "", name, close: () => socket.end() });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      // The socket is born 0600: nobody else may connect in between.
      const umask = process.umask(0o177);
      try {
        server.listen(o.path, () => {
          server.off("error", reject);
          resolve();
        });
      } finally {
        process.umask(umask);
      }
    });
    chmodSync(o.path, 0o600);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    for (const s of this.sockets) s.end();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      setTimeout(() => {
        for (const s of this.sockets) s.destroy();
      }, 2000).unref();
    });
  }
}

async function removeStale(p: string, text: string): Promise<void> {
  let st;
  try {
    st = lstatSync(p);
  } catch {
    return;
  }
  if (!st.isSocket()) throw new Error(`--listen ${text}: ${p} exists and is not a socket; remove it or pick another path`);
  const live = await new Promise<boolean>((resolve) => {
    const c = net.connect(p);
    c.once("connect", () => {
      c.destroy();
      resolve(true);
    });
    c.once("error", () => resolve(false));
  });
  if (live) throw new Error(`--listen ${text}: another process is serving on ${p}`);
  unlinkSync(p);
}
