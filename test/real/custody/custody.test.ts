// R-CUSTODY-1 with real agents opened by catalog id through `a4aa serve`, each against its
// loopback model mock: with options.custody "proxy" the agent completes a turn with a tool
// call, the mock sees the real key (by digest), and no process of the agent's tree holds it
// (environment, command line); the agent's base URL is the proxy's. Opens custody cannot
// serve are refused before anything is spawned.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { INSTALL_HINT, agentsInstalled, type AgentName } from "../../agents/agents.js";
import { processesWithMarker } from "../../helpers/procs.js";
import { catalogRig, reply, teardown } from "../catalog/rig.js";
import { BUILTIN_CATALOG } from "../../../generated/ts/catalog.js";
import { fakeAgentSpec } from "../../helpers/sidecar.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const allowOnce = (p: any) => {
  const o = p.options.find((x: { kind: string }) => x.kind === "allowOnce");
  return o ? { result: { selected: o.optionId } } : { result: { cancelled: true } };
};
const proc = (pid: number, what: "environ" | "cmdline") => {
  try {
    return readFileSync(`/proc/${pid}/${what}`, "latin1");
  } catch {
    return "";
  }
};

interface Case {
  agent: AgentName;
  id: string;
  options?: Record<string, unknown>;
}

const CASES: Case[] = [
  { agent: "claude", id: "claude-code" },
  { agent: "claude-agent-acp", id: "claude-agent-acp" },
  { agent: "gemini-acp", id: "gemini" },
  { agent: "qwen", id: "qwen" },
];

for (const c of CASES) {
  describe(`custody: ${c.id}`, { skip: agentsInstalled([c.agent]) ? false : INSTALL_HINT }, () => {
    test(`R-CUSTODY-1: ${c.id} runs a tool turn through the proxy; the mock sees the real key, the agent's tree never holds it`, { timeout: 150_000 }, async () => {
      const api = BUILTIN_CATALOG.agents.find((a) => a.id === c.id)!.modelApi!;
      const r = await catalogRig(c.agent, c.id, [reply.shell("echo custody-ok > custody.txt"), reply.text("Tool turn finished.")], allowOnce);
      const key = r.credentials[api.keyVariable]!;
      assert.ok(key, `the rig gives ${api.keyVariable}`);
      try {
        const open = await r.open({ options: { custody: "proxy", permission: "ask" } });
        const p = r.s.ok("session/prompt", { sessionId: open.sessionId, text: "Run the command." });
        // While the turn runs: every process of the agent's tree, its environment and argv.
        await r.s.waitFor(() => r.mock.requests.length > 0, 60_000, "the first request to the model API");
        const pids = processesWithMarker(r.marker);
        assert.ok(pids.length >= 1);
        for (const pid of pids) {
          const env = proc(pid, "environ");
          assert.ok(!env.includes(key), `pid ${pid}'s environment holds the key`);
          assert.ok(!proc(pid, "cmdline").includes(key), `pid ${pid}'s argv holds the key`);
        }
        const top = proc(pids[0]!, "environ").split("\0");
        assert.ok(top.includes(`${api.keyVariable}=a4aa-custody-placeholder`), "the agent holds the placeholder");
        assert.ok(top.some((l) => new RegExp(`^${api.baseUrlVariable}=http://127\\.0\\.0\\.1:\\d+/s/[0-9a-f]{48}$`).test(l)), "its base URL is the proxy's");
        const out = await p;
        assert.equal(out.stopReason, "endTurn");
        assert.match(out.text, /Tool turn finished\./);
        const main = r.mock.mainRequests();
        assert.ok(main.length >= 2, "the turn and the tool's follow-up went through the proxy");
        for (const q of main) assert.equal(q.secretDigests[api.keyHeader], sha(key), `the mock got the real key in ${api.keyHeader}`);
        await r.s.ok("session/close", { sessionId: open.sessionId });
      } finally {
        await teardown(r);
      }
    });
  });
}

describe("custody refused before spawning", { skip: agentsInstalled(["codex"]) ? false : INSTALL_HINT }, () => {
  test("R-CUSTODY-1: a spec open and an entry without modelApi (codex) are unsupported_selector; no process starts", { timeout: 60_000 }, async () => {
    const r = await catalogRig("codex", "codex", [reply.text("never")]);
    try {
      const viaSpec = await r.s.call("session/open", { spec: fakeAgentSpec(r.marker), options: { custody: "proxy" } });
      assert.equal(viaSpec.error?.data.code, "unsupported_selector");
      assert.match(viaSpec.error!.data.detail, /needs a catalog agent/);
      const codex = await r.s.call("session/open", { agent: { id: "codex", credentials: r.credentials }, cwd: r.run.cwd, options: { custody: "proxy" } });
      assert.equal(codex.error?.data.code, "unsupported_selector");
      assert.match(codex.error!.data.detail, /has no modelApi/);
      assert.deepEqual(processesWithMarker(r.marker), [], "nothing was spawned");
      assert.equal(r.mock.requests.length, 0);
    } finally {
      await teardown(r);
    }
  });
});
