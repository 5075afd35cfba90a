// The sidecar's end of a sandbox's model route (R-SANDBOX-1, network "model"): a unix socket
// in the session's private folder, shown inside the sandbox, whose every connection goes on
// to the one model endpoint (the custody proxy, or --sandbox-model-endpoint). The sandbox's
// forwarder (launcher.ts) is the other end.
import net from "node:net";

export interface Endpoint {
  host: string;
  port: number;
}

export class ModelRelay {
  private readonly open = new Set<net.Socket>();

  private constructor(private readonly server: net.Server) {}

  static async start(socketPath: string, to: Endpoint): Promise<ModelRelay> {
    let relay: ModelRelay | undefined;
    const server = net.createServer((inbound) => {
      const outbound = net.connect(to.port, to.host);
      for (const s of [inbound, outbound]) {
        relay!.open.add(s);
        s.once("close", () => relay!.open.delete(s));
      }
      inbound.pipe(outbound).pipe(inbound);
      inbound.on("error", () => outbound.destroy());
      outbound.on("error", () => inbound.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
    server.unref();
    relay = new ModelRelay(server);
    return relay;
  }

  close(): Promise<void> {
    for (const s of this.open) s.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** `HOST:PORT` or `[v6]:PORT` of a loopback address, as `--sandbox-model-endpoint` takes it. */
export function parseLoopbackEndpoint(text: string): Endpoint {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text.trim());
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (!m || !host || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`expected HOST:PORT, e.g. 127.0.0.1:8080, not ${JSON.stringify(text)}`);
  if (!isLoopback(host)) throw new Error(`${host} is not a loopback address (127.0.0.0/8, ::1, localhost): the sandbox's one reachable address must be on this machine`);
  return { host, port };
}

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || (net.isIPv4(host) && host.startsWith("127."));
}
