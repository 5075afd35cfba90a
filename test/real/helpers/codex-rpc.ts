// The real `codex app-server` (the pinned @openai/codex of test/agents) driven through a
// real `a4aa serve`, against the loopback Responses mock of test/agents/mocks, each test
// in its own scratch CODEX_HOME. Every test ends by checking that no process it started —
// codex, its native binary, the commands it ran — is left.
import { after } from "node:test";
import assert from "node:assert/strict";
import type http from "node:http";
import type { RpcAgentSpec } from "../../../generated/ts/types.js";
import { agentsInstalled, prepareAgent, requireAgents, startMockFor, type AgentRun } from "../../agents/agents.js";
import type { ModelMock, RecordedRequest, Reply, Script } from "../../agents/mocks/common.js";
import { Host, killAll, newMarker, processesMentioning, processesWithMarker, waitGone, type PermissionAnswer } from "../../fixtures/rpc/host.js";

export { reply } from "../../agents/mocks/common.js";

/** Skips a whole file when the real agents are not installed (npm run agents:install). */
export const skip = agentsInstalled(["codex"]) ? false : "the real agents are not installed (npm run agents:install)";
if (process.env.CI && skip) requireAgents(["codex"]);

export interface CodexRun {
  h: Host;
  mock: ModelMock;
  run: AgentRun;
  marker: string;
  spec: RpcAgentSpec;
  /** Opens a session on this codex set-up (a new `codex app-server` process). */
  open(extra?: Record<string, unknown>): Promise<string>;
}

const runs: CodexRun[] = [];
after(async () => {
  for (const r of runs) {
    r.h.kill();
    killAll([...processesWithMarker(r.marker), ...processesMentioning(r.run.dir)]);
    await r.mock.close();
    await r.run.cleanup();
  }
});

export async function startCodex(
  script: Script,
  opts: { args?: string[]; onPermission?: (p: any) => PermissionAnswer; fallback?: Reply } = {},
): Promise<CodexRun> {
  const mock = await startMockFor("codex", { script, fallback: opts.fallback });
  const run = prepareAgent("codex", mock);
  const marker = newMarker();
  const command = run.command(["app-server"]);
  if (command.env.policy === "sanitized") command.env.set = { ...command.env.set, A4AA_TEST_MARKER: marker };
  const spec: RpcAgentSpec = { id: "codex", lane: "rpc", dialect: "codexAppServer", command };
  const h = new Host(opts.args ?? ["--cancel-grace", "10000"], opts.onPermission);
  const r: CodexRun = {
    h,
    mock,
    run,
    marker,
    spec,
    open: (extra = {}) => h.open(spec, { cwd: run.cwd, ...extra }),
  };
  runs.push(r);
  return r;
}

/** Nothing of the test is left: no process with its marker, none running from its scratch folder. */
export async function noneLeft(r: CodexRun): Promise<void> {
  assert.deepEqual(await waitGone(() => processesWithMarker(r.marker)), [], "no process carrying the test's marker is left");
  assert.deepEqual(await waitGone(() => processesMentioning(r.run.dir)), [], "no process runs from the test's scratch folder");
}

/** R-SUP-1: the sidecar exits 0 on EOF and nothing the test started is left. */
export async function finish(r: CodexRun): Promise<void> {
  assert.equal(await r.h.end(), 0, `the sidecar exits 0; stderr:\n${r.h.stderr.slice(-3000)}`);
  await noneLeft(r);
}

/** The text of a request's user messages (what the model was asked, history included). */
export function userTexts(req: RecordedRequest): string[] {
  const out: string[] = [];
  for (const item of (req.body?.input ?? []) as any[]) {
    if (item?.role !== "user" || !Array.isArray(item.content)) continue;
    for (const c of item.content) if (typeof c?.text === "string") out.push(c.text);
  }
  return out;
}

/**
 * A reply the shared mock has no shape for: Codex's `apply_patch` freeform tool (a
 * `custom_tool_call`), which Codex turns into a fileChange item (and an approval under `ask`).
 */
export function applyPatch(patch: string, callId = "call_patch_1"): Reply {
  return {
    type: "custom",
    handle: (req: RecordedRequest, res: http.ServerResponse) => {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
      const id = `resp_patch_${req.seq}`;
      const item = { id: `ctc_${req.seq}`, type: "custom_tool_call", status: "completed", call_id: callId, name: "apply_patch", input: patch };
      const events: [string, unknown][] = [
        ["response.created", { response: { id, object: "response", status: "in_progress", output: [] } }],
        ["response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", input: "" } }],
        ["response.output_item.done", { output_index: 0, item }],
        [
          "response.completed",
          {
            response: {
              id,
              object: "response",
              status: "completed",
              output: [item],
              usage: { input_tokens: 50, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 70 },
            },
          },
        ],
      ];
      let seq = 0;
      for (const [type, data] of events) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...(data as object) })}\n\n`);
      res.end();
      req.served = "apply_patch";
    },
  };
}
