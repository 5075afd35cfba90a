// R-CUSTODY-1 with a real agent opened by catalog id through `a4aa serve`, against the loopback
// mock of its model API: with options.custody "proxy" the agent completes a turn with a tool
// call, the mock sees the real key (by digest) on every main request, and no process of the
// agent's tree holds it (environment, command line) while the turn runs. The agent holds a
// placeholder and the proxy's URL: with the token in the URL (a base URL variable), or as its
// key when its base URL is on the command line (codex), where the token never shows.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { INSTALL_HINT, agentsInstalled, type AgentName } from "../../agents/agents.js";
import { processesWithMarker } from "../../helpers/procs.js";
import { catalogRig, reply, teardown } from "../catalog/rig.js";
import type { Reply } from "../../agents/mocks/common.js";
import { BUILTIN_CATALOG } from "../../../generated/ts/catalog.js";

export { reply };

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const allowOnce = (p: any) => {
  const o = p.options.find((x: { kind: string }) => x.kind === "allowOnce");
  return o ? { result: { selected: o.optionId } } : { result: { cancelled: true } };
};
export const proc = (pid: number, what: "environ" | "cmdline") => {
  try {
    return readFileSync(`/proc/${pid}/${what}`, "latin1");
  } catch {
    return "";
  }
};

export interface CustodyCase {
  agent: AgentName;
  id: string;
  /** `agent.lane` (default: the entry's first installed lane). */
  lane?: "acp" | "rpc" | "cli";
  /** Session options besides custody (default: permission ask, the call allowed once). */
  options?: Record<string, unknown>;
  /** `agent.upstream`: where the proxy forwards, from the mock's URL (default: the base URL variable the rig gives). */
  upstream?: (mockUrl: string) => string;
  /** The model's shell call (default: the agent's plain shell tool). */
  toolCall?: (cmd: string) => Reply;
}

export function custodySuite(c: CustodyCase): void {
  const name = `${c.id}${c.lane ? ` (${c.lane} lane)` : ""}`;
  describe(`custody: ${name}`, { skip: agentsInstalled([c.agent]) ? false : INSTALL_HINT }, () => {
    test(`R-CUSTODY-1: ${name} runs a tool turn through the proxy; the mock sees the real key, the agent's tree never holds it`, { timeout: 150_000 }, async () => {
      const api = BUILTIN_CATALOG.agents.find((a) => a.id === c.id)!.modelApi!;
      const cmd = "echo custody-ok > custody.txt";
      const r = await catalogRig(c.agent, c.id, [c.toolCall?.(cmd) ?? reply.shell(cmd), reply.text("Tool turn finished.")], allowOnce);
      const key = r.credentials[api.keyVariable]!;
      assert.ok(key, `the rig gives ${api.keyVariable}`);
      try {
        const agent = { id: c.id, credentials: r.credentials, ...(c.lane ? { lane: c.lane } : {}), ...(c.upstream ? { upstream: c.upstream(r.mock.url) } : {}) };
        const open = await r.s.ok("session/open", { agent, env: { A4AA_TEST_MARKER: r.marker }, cwd: r.run.cwd, options: { custody: "proxy", permission: "ask", ...c.options } });
        const p = r.s.ok("session/prompt", { sessionId: open.sessionId, text: "Run the command." });
        // While the turn runs: every process of the agent's tree, its environment and argv.
        await r.s.waitFor(() => r.mock.requests.length > 0, 60_000, "the first request to the model API");
        const pids = processesWithMarker(r.marker);
        assert.ok(pids.length >= 1);
        for (const pid of pids) {
          assert.ok(!proc(pid, "environ").includes(key), `pid ${pid}'s environment holds the key`);
          assert.ok(!proc(pid, "cmdline").includes(key), `pid ${pid}'s argv holds the key`);
        }
        const top = proc(pids[0]!, "environ").split("\0");
        if (api.baseUrlArgs || api.baseUrlSettings) {
          const held = top.find((l) => l.startsWith(`${api.keyVariable}=`))!;
          assert.match(held, new RegExp(`^${api.keyVariable}=a4aa-custody-[0-9a-f]{48}$`), "the agent's key is the session's token");
          const token = held.slice(held.indexOf("=") + 1 + "a4aa-custody-".length);
          const argvs = pids.map((pid) => proc(pid, "cmdline").split("\0").join(" "));
          assert.ok(argvs.some((a) => /base_url\W+http:\/\/127\.0\.0\.1:\d+\W/.test(a)), `the proxy's URL is on a command line of the tree: ${argvs.join("\n")}`);
          assert.ok(!argvs.some((a) => a.includes(token)), "the token is on no command line");
        } else {
          assert.ok(top.includes(`${api.keyVariable}=a4aa-custody-placeholder`), "the agent holds the placeholder");
          assert.ok(top.some((l) => new RegExp(`^${api.baseUrlVariable}=http://127\\.0\\.0\\.1:\\d+/s/[0-9a-f]{48}$`).test(l)), "its base URL is the proxy's");
        }
        const out = await p;
        assert.equal(out.stopReason, "endTurn");
        assert.match(out.text, /Tool turn finished\./);
        assert.ok(existsSync(path.join(r.run.cwd, "custody.txt")), "the command ran");
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
