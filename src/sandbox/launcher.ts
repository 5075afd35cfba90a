// Runs inside a sandbox with network "model" (R-SANDBOX-1) where socat is not installed (it
// forwards the same way, faster to start: session-sandbox.ts), beside the command: listens on the
// model endpoint's own address (e.g. 127.0.0.1:<proxy port>) in the sandbox's empty network
// namespace and relays each connection over a unix socket the sidecar shows inside, to the
// real endpoint. So the URL the agent was given works unchanged, and it is the only address
// the agent can reach. It starts in the background, writes `ready` beside the socket once it
// listens (the command starts then: an agent may connect at once), writes nothing to stdout
// (the command's protocol channel), and ends with the sandbox's process namespace when the
// command ends, or with the session's process group.
//
// argv: <host> <port> <socket> <ready file>. Node built-ins only: this file is shown alone inside the sandbox.
import { writeFileSync } from "node:fs";
import net from "node:net";

const [host, port, socket, ready] = process.argv.slice(2);

const server = net.createServer((inbound) => {
  const outbound = net.connect(socket!);
  inbound.pipe(outbound).pipe(inbound);
  inbound.on("error", () => outbound.destroy());
  outbound.on("error", () => inbound.destroy());
});
server.on("error", (e) => {
  process.stderr.write(`a4aa sandbox: cannot listen on ${host}:${port} for the model endpoint (the agent reaches no model): ${e.message}\n`);
  process.exit(126);
});
// Listening: the command waiting beside it may start (its first connection finds this).
server.listen(Number(port), host, () => writeFileSync(ready!, ""));
