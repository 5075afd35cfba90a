// §8 supervision beyond close (R-SUP-3…6): a tree ends when its main process exits, nothing
// outlives a SIGKILLed implementation, descendants that left the group are still ended,
// and close says what it ended. Leftovers are judged by the check's env marker only.
import assert from "node:assert/strict";
import type { AcpAgentSpec } from "../../../generated/ts/types.js";
import { sleep, type Check, type CheckContext } from "../harness/context.js";
import type { Host } from "../harness/client.js";
import { describe } from "../harness/procs.js";

const ZERO = { ended: 0, killed: 0 };

function withTerminals(ctx: CheckContext, flags: string[] = []): AcpAgentSpec {
  return ctx.acp(flags, { clientCapabilities: { terminal: true } } as Partial<AcpAgentSpec>);
}

async function noLeftovers(ctx: CheckContext, ms: number, when: string): Promise<void> {
  const left = await ctx.waitNoLeftovers(ms);
  assert.deepEqual(left, [], `processes alive ${ms} ms after ${when}: ${describe(left)}`);
}

/** Two sessions, each with a SIGTERM-ignoring daemon that left the group: one started by the agent, one by a terminal. */
async function twoDaemons(ctx: CheckContext, h: Host): Promise<string[]> {
  const sids: string[] = [];
  for (const text of ["daemon", "terminal-daemon"]) {
    const sid = (await h.open(withTerminals(ctx))).sessionId;
    const r = await h.api.sessionPrompt({ sessionId: sid, text });
    assert.match(r.text ?? "", /daemon \d+/, `${text}: the agent could not start its daemon`);
    sids.push(sid);
  }
  assert.ok(ctx.leftovers().length >= 5, "the agents, the terminal and both daemons run");
  return sids;
}

export const supervisionChecks: Check[] = [
  {
    id: "R-SUP-3/crash-ends-group",
    covers: ["R-SUP-3"],
    title: "an ACP agent that crashes after starting a SIGTERM-ignoring child in its group: the child is gone within the grace, with no close",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      await h.fail("session/prompt", { sessionId: sid, text: "crash-tree" }, "agent_exited");
      await noLeftovers(ctx, 5000, "the agent's crash (no close was sent)");
      assert.ok((await h.api.sessionClose({ sessionId: sid })).processes);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-SUP-4/sidecar-sigkill",
    covers: ["R-SUP-4"],
    title: "SIGKILL of the implementation while an ACP agent ignoring EOF and SIGTERM, its grandchildren, a running terminal and a SIGTERM-trapping CLI turn run: nothing is left 5 s later",
    async run(ctx) {
      const h = ctx.start();
      const a = (await h.open(ctx.acp(["--stubborn"]))).sessionId;
      await h.api.sessionPrompt({ sessionId: a, text: "grandchild" });
      const t = (await h.open(withTerminals(ctx, ["--stubborn"]))).sessionId;
      void h.prompt(t, "terminal-sleep");
      const c = (await h.open(ctx.cli("generic"))).sessionId;
      void h.prompt(c, "stubborn");
      await h.waitFor(() => /terminal term-/.test(h.text(t)) && h.events(c).length >= 2, 10_000, "the terminal and the cli turn");
      assert.ok(ctx.leftovers().length >= 7, `the agents and their trees run: ${describe(ctx.leftovers())}`);
      h.wire.signal("SIGKILL");
      await h.waitExit(5000, "after SIGKILL");
      await noLeftovers(ctx, 5000, "the implementation was SIGKILLed");
    },
  },
  {
    id: "R-SUP-5/daemon-close",
    covers: ["R-SUP-5"],
    title: "a daemon (setsid, double fork, ignores SIGTERM) started by an agent and one started by an ACP terminal are gone when close answers",
    async run(ctx) {
      const h = ctx.start();
      for (const sid of await twoDaemons(ctx, h)) await h.api.sessionClose({ sessionId: sid });
      const left = ctx.leftovers();
      assert.deepEqual(left, [], `alive after both closes answered: ${describe(left)}`);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-SUP-5/daemon-crash",
    covers: ["R-SUP-5"],
    title: "those daemons are ended when their agents crash, before any close",
    async run(ctx) {
      const h = ctx.start();
      for (const sid of await twoDaemons(ctx, h)) await h.fail("session/prompt", { sessionId: sid, text: "crash" }, "agent_exited");
      await noLeftovers(ctx, 5000, "the agents crashed (no close was sent)");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-SUP-5/daemon-shutdown",
    covers: ["R-SUP-5"],
    title: "those daemons are gone when the implementation has shut down on EOF",
    async run(ctx) {
      const h = ctx.start();
      await twoDaemons(ctx, h);
      assert.equal(await h.end(), 0);
      await noLeftovers(ctx, 500, "the implementation exited");
    },
  },
  {
    id: "R-SUP-6/close-counts",
    covers: ["R-SUP-6", "R-CLOSE-2"],
    title: "close answers {processes: {ended, killed}}: 1/0 for an agent that leaves on EOF, SIGKILLed grandchildren counted, 0/0 for a closed or never-known id",
    async run(ctx) {
      const h = ctx.start();
      const plain = (await h.open(ctx.acp())).sessionId;
      await h.api.sessionPrompt({ sessionId: plain, text: "text:x" });
      assert.deepEqual((await h.api.sessionClose({ sessionId: plain })).processes, { ended: 1, killed: 0 }, "an agent that exits on stdin EOF");
      assert.deepEqual((await h.api.sessionClose({ sessionId: plain })).processes, ZERO, "a closed id");
      assert.deepEqual((await h.api.sessionClose({ sessionId: "never-known" })).processes, ZERO, "a never-known id");
      const tree = (await h.open(ctx.acp())).sessionId;
      await h.api.sessionPrompt({ sessionId: tree, text: "grandchild" });
      await sleep(50);
      const n = ctx.leftovers().length;
      const p = (await h.api.sessionClose({ sessionId: tree })).processes;
      assert.ok(p.ended >= 3, `the agent and its two grandchildren ended, counted ${p.ended} (of ${n} seen)`);
      assert.ok(p.killed >= 2 && p.killed < p.ended, `both grandchildren ignore SIGTERM, the agent does not: killed ${p.killed} of ${p.ended}`);
      assert.equal(await h.end(), 0);
    },
  },
];
