#!/usr/bin/env node
// The floor of a Node WebSocket JSON-RPC server: the `ws` package's server (the one a4aa
// serve uses), each text frame JSON.parse'd and answered with JSON.stringify. No auth, no
// validation, no dispatch. Prints `listening on ws://127.0.0.1:PORT` on stdout.
import { WebSocketServer } from "ws";

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
wss.on("connection", (ws) => {
  ws.on("message", (data) => {
    const m = JSON.parse(data.toString()) as { id?: unknown };
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocol: "a4aa.v1", version: "0.1.0" } }));
  });
});
wss.on("listening", () => {
  const a = wss.address();
  if (a && typeof a === "object") process.stdout.write(`listening on ws://127.0.0.1:${a.port}\n`);
});
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
