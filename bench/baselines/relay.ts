#!/usr/bin/env node
// The floor of the streaming hop itself: the least a Node sidecar can do to carry an ACP
// agent's updates to a host as a4aa events. It speaks just enough a4aa.v1 for the
// streaming benchmark (session/open on an ACP agent, session/prompt, session/close) and,
// per agent line: JSON.parse, map agent_message_chunk to a messageChunk event,
// JSON.stringify, and one batched write per chunk read from the agent (as a4aa serve
// batches). No validation, no limits, no supervision, no error handling: a measuring
// stick, not a sidecar.
import { spawn, type ChildProcess } from "node:child_process";
import { readLines } from "../lib/ndjson.js";

type Msg = { id?: number | string; method?: string; params?: any; result?: any; error?: any };

const out = process.stdout;
let agent: ChildProcess | null = null;
let nextAgentId = 1;
const agentPending = new Map<number, (m: Msg) => void>();
let batch: string[] = [];
let sessionId = "";
let seq = 0;
let turnText: string[] = [];

function toHost(msg: unknown): void {
  batch.push(JSON.stringify(msg));
}

function flush(): void {
  if (!batch.length) return;
  const text = batch.join("\n") + "\n";
  batch = [];
  if (!out.write(text)) {
    agent?.stdout?.pause();
    out.once("drain", () => agent?.stdout?.resume());
  }
}

function ask(method: string, params: unknown): Promise<Msg> {
  const id = nextAgentId++;
  agent!.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  return new Promise((r) => agentPending.set(id, r));
}

function onAgentLine(line: string): void {
  const m = JSON.parse(line) as Msg;
  if (m.method === "session/update") {
    const u = m.params.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text") {
      turnText.push(u.content.text);
      toHost({ jsonrpc: "2.0", method: "session/event", params: { sessionId, seq: ++seq, event: { type: "messageChunk", text: u.content.text } } });
    }
    return;
  }
  if (m.id !== undefined && m.method === undefined) {
    const cb = agentPending.get(m.id as number);
    agentPending.delete(m.id as number);
    cb?.(m);
  }
}

async function onHost(m: Msg): Promise<void> {
  const answer = (result: unknown) => {
    toHost({ jsonrpc: "2.0", id: m.id, result });
    flush();
  };
  switch (m.method) {
    case "ping":
      return answer({ protocol: "a4aa.v1" });
    case "session/open": {
      const cmd = m.params.spec.command as { program: string; args?: string[] };
      agent = spawn(cmd.program, cmd.args ?? [], { stdio: ["pipe", "pipe", "inherit"] });
      readLines(agent.stdout!, onAgentLine);
      // One write to the host per chunk read from the agent, after its lines are handled.
      agent.stdout!.on("data", () => queueMicrotask(flush));
      await ask("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const r = await ask("session/new", { cwd: process.cwd(), mcpServers: [] });
      sessionId = r.result.sessionId;
      return answer({ sessionId });
    }
    case "session/prompt": {
      turnText = [];
      const r = await ask("session/prompt", { sessionId, prompt: [{ type: "text", text: m.params.text }] });
      const stop = r.result?.stopReason === "end_turn" ? "endTurn" : "cancelled";
      return answer({ stopReason: stop, text: turnText.join("") });
    }
    case "session/close":
      agent?.stdin?.end();
      return answer({});
    default:
      toHost({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `not in the relay baseline: ${m.method}` } });
      flush();
  }
}

readLines(process.stdin, (line) => void onHost(JSON.parse(line) as Msg));
process.stdin.on("end", () => {
  agent?.stdin?.end();
  agent?.once("exit", () => process.exit(0));
  if (!agent) process.exit(0);
});
