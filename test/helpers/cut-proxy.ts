// A TCP proxy in front of a listening sidecar whose connections a test can cut at will (both
// sockets destroyed, no close handshake): what a dropped network does to a remote host; or
// freeze (nothing forwarded either way, nothing closed): what a silent network does.
import net from "node:net";

export interface CutProxy {
  /** The proxy's ws:// URL (same path as the target's). */
  url: string;
  /** Connections accepted so far. */
  accepted(): number;
  /** Destroys every live connection. */
  cut(): void;
  /** Stops forwarding on every live connection, without closing it (later ones flow). */
  freeze(): void;
  close(): Promise<void>;
}

export async function proxyTo(url: string): Promise<CutProxy> {
  const target = new URL(url);
  const port = Number(target.port);
  const live = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let accepted = 0;
  const server = net.createServer((down) => {
    accepted++;
    const up = net.connect(port, "127.0.0.1");
    for (const s of [down, up]) {
      live.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        live.delete(s);
        down.destroy();
        up.destroy();
      });
    }
    const pair: [net.Socket, net.Socket] = [down, up];
    pairs.add(pair);
    down.once("close", () => pairs.delete(pair));
    down.pipe(up);
    up.pipe(down);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const cut = () => {
    for (const s of [...live]) s.destroy();
  };
  return {
    url: `ws://127.0.0.1:${(server.address() as net.AddressInfo).port}${target.pathname === "/" ? "" : target.pathname}`,
    accepted: () => accepted,
    cut,
    freeze() {
      for (const [down, up] of pairs) {
        down.unpipe(up);
        up.unpipe(down);
        down.pause();
        up.pause();
      }
    },
    close() {
      cut();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
