#!/usr/bin/env node
// A small scripted `codex app-server` for the rpc lane's conformance checks: the wire
// format Codex speaks (one JSON object per line, no "jsonrpc", its own request ids),
// enough of it for a handshake, turns, interrupts and approvals.
// Turn behaviour comes from the prompt: commands separated by `;`, `cmd` or `cmd:arg`.
//   text:MSG   an agent message in two deltas       slow:N   N deltas 50 ms apart (interruptible)
//   cmd:CMD    a command approval; reports the decision as `decision=<json>`
//   fail:MSG   turn/completed failed with MSG       crash    a delta, a stderr line, exit 3
//   grandchild a child that ignores SIGTERM          env      the environment as JSON text
//   stderr     two stderr lines                      hang     never completes
//   close-stdout  closes stdout and keeps running (R-HOSTILE-5)
// With A4AA_CONFORMANCE_LOG set, each start appends a line to that file.
import { appendFileSync, closeSync } from "node:fs";
import { spawn } from "node:child_process";
import readline from "node:readline";

type Msg = { id?: unknown; method?: string; params?: any; result?: any; error?: any };

if (process.env.A4AA_CONFORMANCE_LOG) appendFileSync(process.env.A4AA_CONFORMANCE_LOG, `fake-app-server ${process.pid}\n`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const write = (m: Record<string, unknown>) => process.stdout.write(JSON.stringify(m) + "\n");
const notify = (method: string, params: Record<string, unknown>) => write({ method, params });
let threadId = "";
let n = 0;
let nextServerId = 0;
const waiting = new Map<string, (m: Msg) => void>();
let active: { id: string; interrupted: boolean } | null = null;

function request(method: string, params: unknown): Promise<Msg> {
  const id = nextServerId++;
  return new Promise((r) => {
    waiting.set(JSON.stringify(id), r);
    write({ method, id, params });
  });
}

const turnObj = (id: string, status: string, error: unknown = null) => ({ id, items: [], status, error });

async function message(turnId: string, text: string): Promise<void> {
  const itemId = `msg_${++n}`;
  notify("item/started", { threadId, turnId, item: { type: "agentMessage", id: itemId, text: "" } });
  const half = Math.ceil(text.length / 2);
  for (const delta of [text.slice(0, half), text.slice(half)]) if (delta) notify("item/agentMessage/delta", { threadId, turnId, itemId, delta });
  notify("item/completed", { threadId, turnId, item: { type: "agentMessage", id: itemId, text } });
}

async function runTurn(turnId: string, text: string): Promise<void> {
  const t = active!;
  let status = "completed";
  let error: unknown = null;
  for (const cmd of text.split(";").map((s) => s.trim()).filter(Boolean)) {
    const i = cmd.indexOf(":");
    const name = i < 0 ? cmd : cmd.slice(0, i);
    const arg = i < 0 ? "" : cmd.slice(i + 1);
    switch (name) {
      case "text":
        await message(turnId, arg);
        break;
      case "slow": {
        const itemId = `msg_${++n}`;
        for (let k = 1; k <= Number(arg || 100) && !t.interrupted; k++) {
          notify("item/agentMessage/delta", { threadId, turnId, itemId, delta: `${k} ` });
          await sleep(50);
        }
        break;
      }
      case "cmd": {
        const itemId = `call_${++n}`;
        const base = { type: "commandExecution", id: itemId, command: arg, cwd: process.cwd(), commandActions: [] };
        notify("item/started", { threadId, turnId, item: { ...base, status: "inProgress" } });
        const r = await request("item/commandExecution/requestApproval", {
          threadId,
          turnId,
          itemId,
          command: arg,
          cwd: process.cwd(),
          availableDecisions: ["accept", "acceptForSession", "decline", "cancel"],
        });
        const decision = r.result?.decision ?? null;
        notify("item/completed", { threadId, turnId, item: { ...base, status: decision === "accept" || decision === "acceptForSession" ? "completed" : "declined" } });
        await message(turnId, `decision=${JSON.stringify(decision)}`);
        break;
      }
      case "fail":
        error = { message: arg || "mock failure" };
        status = "failed";
        break;
      case "crash":
        notify("item/agentMessage/delta", { threadId, turnId, itemId: "c", delta: "about to crash" });
        process.stderr.write("fake-app-server: boom\n");
        await sleep(20);
        process.exit(3);
        break;
      case "close-stdout":
        closeSync(1);
        await new Promise(() => undefined);
        break;
      case "grandchild":
        spawn(process.execPath, ["-e", "process.on('SIGTERM',()=>{});setInterval(()=>{},1000)"], { stdio: "ignore" }).unref();
        await message(turnId, "spawned");
        break;
      case "env":
        await message(turnId, JSON.stringify(process.env));
        break;
      case "stderr":
        process.stderr.write("fake-app-server: stderr one\nfake-app-server: stderr two\n");
        await sleep(30);
        break;
      case "hang":
        await new Promise(() => undefined);
        break;
      default:
        await message(turnId, `unknown command ${name}`);
    }
    if (t.interrupted) break;
  }
  if (t.interrupted) status = "interrupted";
  if (active === t) active = null;
  notify("turn/completed", { threadId, turn: turnObj(turnId, status, error) });
}

async function onRequest(m: Msg): Promise<unknown> {
  switch (m.method) {
    case "initialize":
      return { userAgent: "conformance-fake/0.0.1" };
    case "thread/start":
    case "thread/resume": {
      threadId = m.method === "thread/resume" ? m.params.threadId : `thr_conf_${process.pid}`;
      const thread = { id: threadId, cwd: m.params?.cwd, turns: [] };
      notify("thread/started", { thread });
      return { thread, model: m.params?.model ?? "fake-model", cwd: m.params?.cwd, approvalPolicy: m.params?.approvalPolicy, reasoningEffort: null };
    }
    case "turn/start": {
      const text: string = m.params?.input?.[0]?.text ?? "";
      const id = `turn_${++n}`;
      active = { id, interrupted: false };
      setTimeout(() => {
        notify("turn/started", { threadId, turn: turnObj(id, "inProgress") });
        void runTurn(id, text);
      }, 5);
      return { turn: turnObj(id, "inProgress") };
    }
    case "turn/interrupt":
      if (!active || active.id !== m.params?.turnId) throw { code: -32600, message: "no active turn to interrupt" };
      active.interrupted = true;
      return {};
    default:
      throw { code: -32601, message: `unknown method ${m.method}` };
  }
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  let m: Msg;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.method && m.id !== undefined) {
    onRequest(m).then(
      (result) => write({ id: m.id, result }),
      (e) => write({ id: m.id, error: { code: e?.code ?? -32603, message: e?.message ?? String(e) } }),
    );
  } else if (!m.method && m.id !== undefined) {
    const w = waiting.get(JSON.stringify(m.id));
    waiting.delete(JSON.stringify(m.id));
    w?.(m);
  }
});
rl.on("close", () => process.exit(0));
