// Records the wire of Claude Code / Qwen Code in the mode the claudeCode/qwen drivers use:
// one process per session, `--input-format stream-json --output-format stream-json --verbose
// --include-partial-messages` (+ `--permission-prompt-tool stdio` for claude), against the loopback mock.
// Turn 1: a shell command that needs approval (answered `allow` through `can_use_tool`);
// turn 2: a slow answer interrupted with an `interrupt` control request.
// Usage (after npm run build):  node dist/test/agents/record-stream-json.js claude|qwen [out.jsonl]
// Writes test/agents/transcripts/<agent>-stream-json.jsonl by default ({dir, msg} per line).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { AGENTS_DIR, prepareAgent, requireAgents, startMockFor, type AgentName } from "./agents.js";
import { killGroup, type WireMessage } from "./harness.js";
import { reply } from "./mocks/common.js";

async function main(): Promise<void> {
  const agent = (process.argv[2] ?? "claude") as AgentName;
  if (agent !== "claude" && agent !== "qwen") throw new Error("usage: record-stream-json.js claude|qwen [out.jsonl]");
  requireAgents([agent]);
  const out = process.argv[3] ?? path.join(AGENTS_DIR, "transcripts", `${agent}-stream-json.jsonl`);
  const mock = await startMockFor(agent, {
    script: [
      reply.shell("touch a4aa-made-this && echo a4aa-ok | tr a-z A-Z"),
      reply.text("The file is there."),
      reply.slow(["one ", "two ", "three ", "four ", "five ", "six ", "seven ", "eight ", "nine ", "ten "], 700),
    ],
  });
  const run = prepareAgent(agent, mock);
  const args = ["--input-format", "stream-json", "--output-format", "stream-json", "--include-partial-messages"];
  // Qwen Code 0.15 has neither --verbose nor --permission-prompt-tool: with stream-json input
  // it always asks through `can_use_tool` control requests.
  if (agent === "claude") args.push("--verbose", "--permission-prompt-tool", "stdio");
  const child = spawn(run.program, args, { cwd: run.cwd, env: run.spawnEnv(), stdio: ["pipe", "pipe", "pipe"], detached: true });
  const wire: WireMessage[] = [];
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const send = (msg: any) => {
    wire.push({ dir: "send", msg });
    child.stdin!.write(JSON.stringify(msg) + "\n");
  };
  let results = 0;
  let onResult: (() => void) | undefined;
  let reqN = 0;
  let buf = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => {
    buf += c;
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line) continue;
      let msg: any;
      try {
        msg = JSON.parse(line);
      } catch {
        wire.push({ dir: "recv", msg: { nonJson: line } });
        continue;
      }
      wire.push({ dir: "recv", msg });
      if (msg.type === "control_request" && msg.request?.subtype === "can_use_tool") {
        send({
          type: "control_response",
          response: { subtype: "success", request_id: msg.request_id, response: { behavior: "allow", updatedInput: msg.request.input } },
        });
      }
      if (msg.type === "result") {
        results++;
        onResult?.();
      }
    }
  });
  const waitResult = (n: number, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no result #${n} within ${ms} ms; stderr: ${stderr.slice(-1000)}`)), ms);
      onResult = () => {
        if (results >= n) {
          clearTimeout(t);
          resolve();
        }
      };
      onResult();
    });
  const user = (text: string) =>
    send({ type: "user", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null, session_id: "" });
  const hard = setTimeout(() => killGroup(child), 170_000);
  try {
    send({ type: "control_request", request_id: `req_${++reqN}`, request: { subtype: "initialize", hooks: null } });
    user("Make the file.");
    await waitResult(1, 90_000);
    user("Count slowly.");
    await mock.waitFor(() => true, 1).catch(() => undefined);
    // interrupt once the slow answer is streaming
    for (let i = 0; i < 600 && !mock.requests.some((r) => r.served === "slow"); i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2000));
    send({ type: "control_request", request_id: `req_${++reqN}`, request: { subtype: "interrupt" } });
    // Qwen Code 0.15 acknowledges the interrupt, sends no result for the turn and exits.
    await waitResult(2, 15_000).catch((err: Error) =>
      console.log(`${agent}: ${err.message.split(";")[0]} after the interrupt (process exit code: ${child.exitCode})`),
    );
    child.stdin!.end();
    await new Promise((r) => setTimeout(r, 3000));
  } finally {
    clearTimeout(hard);
    killGroup(child);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, wire.map((w) => JSON.stringify(w)).join("\n") + "\n");
    console.log(`${agent}: ${wire.length} messages -> ${out}; file made: ${fs.existsSync(path.join(run.cwd, "a4aa-made-this"))}`);
    console.log(
      `mock: ${mock.requests.map((r) => `${r.method} ${r.path} ${r.role} ${r.served ?? ""}${r.clientAborted ? " (client aborted)" : ""}`).join(" | ")}`,
    );
    await mock.close();
    await run.cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
