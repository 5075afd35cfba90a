// Runs inside a sandbox with network "model" (R-SANDBOX-1), before the command: listens on
// the model endpoint's own address (e.g. 127.0.0.1:<proxy port>) in the sandbox's empty
// network namespace and relays each connection over a unix socket the sidecar shows inside,
// to the real endpoint. Then starts the command on the same stdio and ends as it ends. So the
// URL the agent was given works unchanged, and it is the only address the agent can reach.
//
// argv: <host> <port> <socket> <program> [args…]. Node built-ins only: this file is shown
// alone inside the sandbox.
import { spawn } from "node:child_process";
import net from "node:net";

const [host, port, socket, program, ...args] = process.argv.slice(2);

// A signal to the group is for the command; this process ends when the command does.
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => undefined);

const server = net.createServer((inbound) => {
  const outbound = net.connect(socket);
  inbound.pipe(outbound).pipe(inbound);
  inbound.on("error", () => outbound.destroy());
  outbound.on("error", () => inbound.destroy());
});
server.on("error", (e) => {
  process.stderr.write(`a4aa sandbox: cannot listen on ${host}:${port} for the model endpoint: ${e.message}\n`);
  process.exit(126);
});
server.listen(Number(port), host, () => {
  const child = spawn(program, args, { stdio: "inherit" });
  child.on("error", (e) => {
    process.stderr.write(`a4aa sandbox: cannot run ${program}: ${e.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    // Ends the way the command did, so that the sidecar sees the same signal.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
});
