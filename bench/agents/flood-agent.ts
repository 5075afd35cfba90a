#!/usr/bin/env node
// A lean ACP agent for the benchmarks: the same process serves the sidecar, the ACP SDK's
// client and the hand-written floor reader. It answers initialize and session/new, and
// each session/prompt by what its text says:
//   flood:N:SIZE   N agent_message_chunk updates of SIZE-byte texts, written in batches
//                  of lines as fast as stdout takes them (it waits for 'drain')
//   big:BYTES      one agent_message_chunk whose text is BYTES bytes
//   anything else  one chunk "ok:<length of the prompt text>"
// then answers the prompt with end_turn. One process holds many sessions (their prompts
// run at once). stdin EOF ends it.
import { readLines } from "../lib/ndjson.js";

const out = process.stdout;
let sessions = 0;

function send(msg: unknown): Promise<void> {
  return write(JSON.stringify(msg) + "\n");
}

function write(s: string): Promise<void> {
  return out.write(s) ? Promise.resolve() : new Promise((r) => out.once("drain", () => r()));
}

const updateLine = (sessionId: string, text: string) =>
  `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":${JSON.stringify(text)}}}}}\n`;

async function flood(sessionId: string, n: number, size: number): Promise<void> {
  const pad = "y".repeat(Math.max(0, size - 8));
  const head = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`;
  const tail = `"}}}}\n`;
  let batch = "";
  for (let i = 0; i < n; i++) {
    batch += head + String(i).padStart(7, "0") + ":" + pad + tail;
    if (batch.length >= 64 * 1024) {
      await write(batch);
      batch = "";
    }
  }
  if (batch) await write(batch);
}

async function prompt(id: unknown, params: { sessionId: string; prompt: { type: string; text?: string }[] }): Promise<void> {
  const text = params.prompt.map((b) => b.text ?? "").join("");
  const [cmd, a, b] = text.length < 100 ? text.split(":") : [""];
  if (cmd === "flood") await flood(params.sessionId, Number(a), Number(b || 16));
  else if (cmd === "big") await write(updateLine(params.sessionId, "x".repeat(Number(a))));
  else await write(updateLine(params.sessionId, `ok:${text.length}`));
  await send({ jsonrpc: "2.0", id, result: { stopReason: "end_turn" } });
}

// One request at a time per session, in order: a prompt's updates all precede its answer;
// the sessions of one process (a4aa share) stream at once.
const queues = new Map<string, Promise<void>>();
let queue: Promise<void> = Promise.resolve();

readLines(process.stdin, (line) => {
  const m = JSON.parse(line) as { id?: unknown; method?: string; params?: any };
  if (m.id === undefined || m.method === undefined) return; // notifications (cancel), responses
  const { id, method, params } = m;
  const key = typeof params?.sessionId === "string" ? params.sessionId : "";
  const prev = queues.get(key) ?? Promise.resolve();
  const next = prev.then(async () => {
    switch (method) {
      case "initialize":
        return send({
          jsonrpc: "2.0",
          id,
          result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, agentInfo: { name: "bench-flood-agent", version: "1.0.0" }, authMethods: [] },
        });
      case "session/new":
        return send({ jsonrpc: "2.0", id, result: { sessionId: `bench-${process.pid}-${++sessions}` } });
      case "session/prompt":
        return prompt(id, params);
      default:
        return send({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } });
    }
  });
  queues.set(key, next);
  queue = Promise.all([queue, next]).then(() => undefined);
});
process.stdin.on("end", () => void queue.then(() => process.exit(0)));
