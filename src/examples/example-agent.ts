#!/usr/bin/env node
// The bundled example ACP agent: a scripted, offline stand-in for a real coding agent.
// Each turn it thinks, plans, reads a file, asks permission to run a command, streams its
// reply and reports usage; it honours cancel, offers modes, a model and an effort
// selector, and can resume (session/load) a session it served before.
//
//   node dist/src/examples/example-agent.js [--delay-ms N]
//
// Prompts starting with a command change the script (for tests and demos):
//   /echo TEXT   reply with TEXT only (no tools, no permission)
//   /slow N      stream N chunks, 100 ms apart (something to cancel)
//   /size        reply with the prompt's length (for large prompts)
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RpcErrorCode, RpcHandlerError } from "../errors.js";
import { serveAgent, sleep } from "./acp-agent-base.js";

const args = process.argv.slice(2);
const delayIdx = args.indexOf("--delay-ms");
const DELAY = delayIdx >= 0 ? Number(args[delayIdx + 1]) : 15;
const VERSION = "1.0.0";
const STORE = path.join(os.tmpdir(), "a4aa-example-agent");

interface SessionData {
  id: string;
  cwd: string;
  mode: string;
  model: string;
  effort: string;
  history: { role: "user" | "agent"; text: string }[];
  costUsd: number;
  turn: AbortController | null;
}

const sessions = new Map<string, SessionData>();

function storePath(id: string): string {
  return path.join(STORE, `${id.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);
}

function save(s: SessionData): void {
  mkdirSync(STORE, { recursive: true });
  writeFileSync(storePath(s.id), JSON.stringify({ ...s, turn: null }));
}

function state(s: SessionData) {
  return {
    modes: {
      currentModeId: s.mode,
      availableModes: [
        { id: "default", name: "Default", description: "Ask before running commands" },
        { id: "plan", name: "Plan", description: "Only plan; never run anything" },
      ],
    },
    configOptions: [
      {
        id: "model",
        name: "Model",
        category: "model",
        type: "select",
        currentValue: s.model,
        options: [
          { value: "example-small", name: "Example Small" },
          { value: "example-large", name: "Example Large" },
        ],
      },
      {
        id: "effort",
        name: "Thinking effort",
        category: "thought_level",
        type: "select",
        currentValue: s.effort,
        options: ["low", "medium", "high"].map((v) => ({ value: v, name: v })),
      },
    ],
  };
}

function session(params: Record<string, unknown>): SessionData {
  const s = sessions.get(params.sessionId as string);
  if (!s) throw new RpcHandlerError(RpcErrorCode.InvalidParams, `unknown session ${JSON.stringify(params.sessionId)}`);
  return s;
}

let counter = 0;
const conn = serveAgent(
  {
    initialize: (p) => ({
      protocolVersion: p.protocolVersion === 1 ? 1 : 1,
      agentCapabilities: { loadSession: true, promptCapabilities: { image: true, audio: false, embeddedContext: true } },
      agentInfo: { name: "a4aa-example-agent", title: "a4aa example agent", version: VERSION },
      authMethods: [],
    }),
    "session/new": (p) => {
      const id = `example-${process.pid}-${++counter}`;
      const s: SessionData = { id, cwd: String(p.cwd), mode: "default", model: "example-small", effort: "medium", history: [], costUsd: 0, turn: null };
      sessions.set(id, s);
      save(s);
      return { sessionId: id, ...state(s) };
    },
    "session/load": async (p) => {
      const id = String(p.sessionId);
      let data: SessionData;
      try {
        data = JSON.parse(readFileSync(storePath(id), "utf8")) as SessionData;
      } catch {
        throw new RpcHandlerError(-32002, `no stored session ${id}`);
      }
      data.turn = null;
      sessions.set(id, data);
      for (const h of data.history) {
        conn.update(id, {
          sessionUpdate: h.role === "user" ? "user_message_chunk" : "agent_message_chunk",
          content: { type: "text", text: h.text },
        });
      }
      return state(data);
    },
    "session/set_mode": (p) => {
      const s = session(p);
      if (p.modeId !== "default" && p.modeId !== "plan") throw new RpcHandlerError(RpcErrorCode.InvalidParams, `no mode ${JSON.stringify(p.modeId)}`);
      s.mode = p.modeId as string;
      conn.update(s.id, { sessionUpdate: "current_mode_update", currentModeId: s.mode });
      return {};
    },
    "session/set_config_option": (p) => {
      const s = session(p);
      if (p.configId === "model") s.model = String(p.value);
      else if (p.configId === "effort") s.effort = String(p.value);
      else throw new RpcHandlerError(RpcErrorCode.InvalidParams, `no config option ${JSON.stringify(p.configId)}`);
      return { configOptions: state(s).configOptions };
    },
    "session/prompt": (p) => runTurn(session(p), p),
  },
  {
    "session/cancel": (p) => sessions.get(p.sessionId as string)?.turn?.abort(),
  },
  { onEnd: () => process.exit(0) },
);

type PromptBlock = { type?: string; text?: string; mimeType?: string; data?: string; uri?: string; name?: string; resource?: { uri?: string; text?: string } };

function promptBlocks(p: Record<string, unknown>): PromptBlock[] {
  return Array.isArray(p.prompt) ? (p.prompt as PromptBlock[]) : [];
}

function lines(text: string): number {
  return text ? text.split("\n").length - (text.endsWith("\n") ? 1 : 0) : 0;
}

function promptText(p: Record<string, unknown>): string {
  return promptBlocks(p)
    .filter((b) => b.type === "text")
    .map((b) => b.text ?? "")
    .join("");
}

/** What the prompt carried besides text, one sentence per block (images, files, links). */
function attachmentsSaid(p: Record<string, unknown>): string {
  const said: string[] = [];
  for (const b of promptBlocks(p)) {
    if (b.type === "image") said.push(`an image (${b.mimeType}, ${Buffer.from(b.data ?? "", "base64").length} bytes)`);
    else if (b.type === "resource") said.push(`${b.resource?.uri} (${lines(b.resource?.text ?? "")} lines)`);
    else if (b.type === "resource_link") said.push(`a link to ${b.uri}`);
  }
  return said.length ? `I received ${said.join(", ")}. ` : "";
}

async function stream(s: SessionData, kind: "agent_message_chunk" | "agent_thought_chunk", text: string, signal: AbortSignal): Promise<void> {
  for (const word of text.match(/\S+\s*/g) ?? []) {
    if (signal.aborted) return;
    conn.update(s.id, { sessionUpdate: kind, content: { type: "text", text: word } });
    await sleep(DELAY, signal);
  }
}

async function runTurn(s: SessionData, p: Record<string, unknown>) {
  if (s.turn) throw new RpcHandlerError(RpcErrorCode.InvalidRequest, "a turn is already running");
  const turn = new AbortController();
  s.turn = turn;
  const signal = turn.signal;
  const text = promptText(p);
  s.history.push({ role: "user", text });
  let reply = "";
  const say = async (t: string) => {
    reply += t;
    await stream(s, "agent_message_chunk", t, signal);
  };
  try {
    const attached = attachmentsSaid(p);
    if (attached) await say(attached);
    if (text.startsWith("/echo")) {
      await say(text.slice(5).trim() || "(nothing to echo)");
    } else if (text.startsWith("/size")) {
      await say(`I received ${text.length} characters.`);
    } else if (text.startsWith("/slow")) {
      const n = Number(text.slice(5).trim()) || 50;
      for (let i = 1; i <= n && !signal.aborted; i++) {
        reply += `chunk ${i} `;
        conn.update(s.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk ${i} ` } });
        await sleep(100, signal);
      }
    } else {
      await fullTurn(s, text, signal, say);
    }
    if (!signal.aborted) {
      const cost = 0.0004 * (1 + Math.floor(text.length / 1000));
      s.costUsd += cost;
      conn.update(s.id, { sessionUpdate: "usage_update", used: 1200 + text.length, size: 200000, cost: { amount: s.costUsd, currency: "USD" } });
    }
    s.history.push({ role: "agent", text: reply });
    save(s);
    return signal.aborted
      ? { stopReason: "cancelled" }
      : { stopReason: "end_turn", usage: { inputTokens: 800 + Math.ceil(text.length / 4), outputTokens: Math.ceil(reply.length / 4), totalTokens: 800 + Math.ceil(text.length / 4) + Math.ceil(reply.length / 4) } };
  } finally {
    s.turn = null;
  }
}

async function fullTurn(s: SessionData, text: string, signal: AbortSignal, say: (t: string) => Promise<void>) {
  await stream(s, "agent_thought_chunk", `The user wrote ${text.length} characters. I will look at the project, then run one command to check the shell.`, signal);
  if (signal.aborted) return;
  conn.update(s.id, {
    sessionUpdate: "plan",
    entries: [
      { content: "Read the README", priority: "high", status: "in_progress" },
      { content: "Run a command", priority: "medium", status: "pending" },
      { content: "Answer", priority: "medium", status: "pending" },
    ],
  });
  const readme = path.join(s.cwd, "README.md");
  conn.update(s.id, { sessionUpdate: "tool_call", toolCallId: "read-1", title: "Read README.md", kind: "read", status: "pending", locations: [{ path: readme }] });
  let lines = 0;
  try {
    lines = readFileSync(readme, "utf8").split("\n").length;
  } catch {
    // no README: fine
  }
  await sleep(DELAY, signal);
  conn.update(s.id, {
    sessionUpdate: "tool_call_update",
    toolCallId: "read-1",
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: lines ? `README.md has ${lines} lines` : "there is no README.md here" } }],
  });
  if (signal.aborted) return;
  let ran = false;
  if (s.mode !== "plan") {
    conn.update(s.id, { sessionUpdate: "tool_call", toolCallId: "run-1", title: "Run `echo hello`", kind: "execute", status: "pending", rawInput: { command: "echo hello" } });
    const answer = (await conn.peer.request("session/request_permission", {
      sessionId: s.id,
      toolCall: { toolCallId: "run-1", title: "Run `echo hello`", kind: "execute", content: [{ type: "content", content: { type: "text", text: "echo hello" } }] },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "always", name: "Always allow", kind: "allow_always" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    }).catch(() => ({ outcome: { outcome: "cancelled" } }))) as { outcome: { outcome: string; optionId?: string } };
    const chosen = answer.outcome.outcome === "selected" ? answer.outcome.optionId : undefined;
    ran = chosen === "allow" || chosen === "always";
    conn.update(s.id, {
      sessionUpdate: "tool_call_update",
      toolCallId: "run-1",
      status: ran ? "completed" : "failed",
      content: [{ type: "content", content: { type: "text", text: ran ? "hello" : "not run: permission was not granted" } }],
      rawOutput: ran ? { stdout: "hello\n", exitCode: 0 } : null,
    });
  }
  if (signal.aborted) return;
  await say(
    `Done. ${lines ? `The README has ${lines} lines. ` : ""}${ran ? "The shell works (it printed hello). " : s.mode === "plan" ? "In plan mode I ran nothing. " : "I did not run the command. "}` +
      `You asked: "${text.length > 60 ? text.slice(0, 60) + "…" : text}" (model ${s.model}, effort ${s.effort}).`,
  );
}
