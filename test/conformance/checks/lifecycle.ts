// §8 lifecycle and supervision (R-SUP-*, R-EOF-1), §9 logging, and stderr forwarding.
import assert from "node:assert/strict";
import { sleep, type Check, type CheckContext } from "../harness/context.js";
import type { Host } from "../harness/client.js";
import { describe, zombiesUnder } from "../harness/procs.js";

function assertClean(ctx: CheckContext, h: Host | null, when: string): void {
  const left = ctx.leftovers();
  assert.deepEqual(left, [], `processes survived ${when}: ${describe(left)}`);
  if (h && !h.wire.exit && h.wire.pid) {
    const z = zombiesUnder(h.wire.pid);
    assert.deepEqual(z, [], `zombies left under the implementation ${when}: ${describe(z)}`);
  }
}

const settledByShutdown = (r: { result?: { stopReason?: string }; error?: { data?: { code?: string } } }) =>
  r.result?.stopReason === "cancelled" || r.error?.data?.code === "session_closed";

export const lifecycleChecks: Check[] = [
  {
    id: "R-SUP-1/close-ends-tree",
    covers: ["R-SUP-1"],
    title: "close ends grandchildren that ignore SIGTERM and one that left the process group; nothing is left, no zombie",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      await h.api.sessionPrompt({ sessionId: sid, text: "grandchild" });
      assert.ok(ctx.leftovers().length >= 3, "the agent and its grandchildren run");
      await h.api.sessionClose({ sessionId: sid });
      assertClean(ctx, h, "close");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-SUP-1/agent-crash",
    covers: ["R-SUP-1"],
    title: "an agent that crashes after starting grandchildren: the turn fails agent_exited; the crashed agent is reaped; close leaves nothing",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      await h.api.sessionPrompt({ sessionId: sid, text: "grandchild" });
      await h.fail("session/prompt", { sessionId: sid, text: "crash" }, "agent_exited");
      await sleep(300);
      const z = zombiesUnder(h.wire.pid!);
      assert.deepEqual(z, [], `the crashed agent was not reaped: ${describe(z)}`);
      await h.api.sessionClose({ sessionId: sid });
      assertClean(ctx, h, "close of the crashed session");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-SUP-1/shutdown",
    covers: ["R-SUP-1", "R-EOF-1"],
    title: "EOF with sessions of every lane still open (ACP with grandchildren, rpc, cli): exit 0 and nothing left",
    async run(ctx) {
      const h = ctx.start();
      const a = (await h.open(ctx.acp())).sessionId;
      await h.api.sessionPrompt({ sessionId: a, text: "grandchild" });
      const r = (await h.open(ctx.rpc())).sessionId;
      await h.api.sessionPrompt({ sessionId: r, text: "grandchild" });
      const c = (await h.open(ctx.cli("generic"))).sessionId;
      void h.prompt(c, "slow");
      await h.waitFor(() => h.events(c).length >= 1, 10_000, "the cli turn's output");
      assert.ok(ctx.leftovers().length >= 5);
      assert.equal(await h.end(), 0);
      assertClean(ctx, null, "the sidecar's shutdown");
    },
  },
  {
    id: "R-SUP-2/crash-isolated",
    covers: ["R-SUP-2", "R-LANE-1"],
    title: "an ACP agent crashing mid-turn: agent_exited with uncertainEffect and its stderr tail; the session only closes; another session goes on",
    async run(ctx) {
      const h = ctx.start();
      const a = (await h.open(ctx.acp())).sessionId;
      const b = (await h.open(ctx.acp())).sessionId;
      const e = await h.fail("session/prompt", { sessionId: a, text: "crash" }, "agent_exited");
      assert.equal(e.data?.uncertainEffect, true);
      assert.match(e.data?.detail ?? "", /fake-agent: boom/, "the stderr tail is in detail");
      const again = await h.request("session/prompt", { sessionId: a, text: "text:x" });
      assert.ok(again.error, "a crashed session takes no new turn");
      assert.equal((await h.api.sessionPrompt({ sessionId: b, text: "text:fine" })).text, "fine");
      assert.ok((await h.api.sessionClose({ sessionId: a })).processes);
      assert.equal(await h.end(), 0);
      assertClean(ctx, null, "the end");
    },
  },
  {
    id: "R-SUP-2/rpc-crash",
    covers: ["R-SUP-2"],
    title: "a codex app-server crashing mid-turn: agent_exited with its stderr tail; close still works",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.rpc())).sessionId;
      const e = await h.fail("session/prompt", { sessionId: sid, text: "crash" }, "agent_exited");
      assert.equal(e.data?.uncertainEffect, true);
      assert.match(e.data?.detail ?? "", /fake-app-server: crashing mid-turn/);
      assert.ok((await h.api.sessionClose({ sessionId: sid })).processes);
      assert.equal(await h.end(), 0);
      assertClean(ctx, null, "the end");
    },
  },
  {
    id: "R-EOF-1/eof-settles-everything",
    covers: ["R-EOF-1", "R-PERM-1"],
    title: "EOF with a running turn and a pending permission: both prompts settle (cancelled / session_closed) before exit 0; nothing approved; nothing left",
    async run(ctx) {
      const h = ctx.start();
      const a = (await h.open(ctx.acp())).sessionId;
      const b = (await h.open(ctx.acp())).sessionId;
      await h.api.sessionPrompt({ sessionId: b, text: "grandchild" });
      const ta = h.prompt(a, "slow:200");
      const tb = h.prompt(b, "permission");
      await h.waitFor(() => h.permissionRequests().length === 1 && h.events(a).length >= 2, 10_000, "a running turn and a pending permission");
      assert.equal(await h.end(), 0, "exit status after EOF");
      let settled = 0;
      void ta.then(() => settled++);
      void tb.then(() => settled++);
      await sleep(0);
      assert.equal(settled, 2, "every pending prompt is answered before the sidecar exits");
      const [ra, rb] = await Promise.all([ta, tb]);
      assert.ok(settledByShutdown(ra), `the running turn settled with ${JSON.stringify(ra.result ?? ra.error)}`);
      assert.ok(settledByShutdown(rb), `the turn waiting for permission settled with ${JSON.stringify(rb.result ?? rb.error)}`);
      assert.ok(!rb.result?.text?.includes("selected"), "nothing was approved");
      assertClean(ctx, null, "EOF");
    },
  },
  ...(["SIGTERM", "SIGINT"] as const).map(
    (signal): Check => ({
      id: `R-EOF-1/${signal.toLowerCase()}`,
      covers: ["R-EOF-1"],
      title: `${signal} shuts down like EOF: the running turn settles, exit 0, nothing left`,
      async run(ctx) {
        const h = ctx.start();
        const sid = (await h.open(ctx.acp())).sessionId;
        await h.api.sessionPrompt({ sessionId: sid, text: "grandchild" });
        const turn = h.prompt(sid, "slow:200");
        await h.waitFor(() => h.events(sid).filter((e) => e.type === "messageChunk").length >= 3, 10_000, "the turn's events");
        h.wire.signal(signal);
        assert.equal(await h.waitExit(20_000, `after ${signal}`), 0, `exit status after ${signal}`);
        const r = await Promise.race([turn, sleep(100).then(() => null)]);
        assert.ok(r, "the pending prompt was not answered before exit");
        assert.ok(settledByShutdown(r), JSON.stringify(r.result ?? r.error));
        assertClean(ctx, null, signal);
      },
    }),
  ),
  {
    id: "R-LOG-1/stderr-log-lines",
    covers: ["R-LOG-1"],
    title: "with --log-level debug, logs appear on stderr, one line each, and mention the session id",
    async run(ctx) {
      const h = ctx.start({ args: ["--log-level", "debug"] });
      const sid = (await h.open(ctx.acp())).sessionId;
      await h.api.sessionPrompt({ sessionId: sid, text: "text:x" });
      await h.api.sessionClose({ sessionId: sid });
      assert.equal(await h.end(), 0);
      assert.ok(h.stderr.trim().length > 0, "nothing was logged at debug level");
      assert.ok(h.stderr.includes(sid), "no log line names the session id");
    },
  },
  {
    id: "R-LANE-1/stderr-events",
    covers: ["R-LANE-1"],
    title: "stderr lines an agent writes during a turn arrive as stderr events, on every lane",
    async run(ctx) {
      const h = ctx.start();
      const cases: [ReturnType<CheckContext["acp"]> | ReturnType<CheckContext["rpc"]> | ReturnType<CheckContext["cli"]>, string, string[]][] = [
        [ctx.acp(), "stderr;text:x", ["fake-agent: first stderr line", "fake-agent: second stderr line"]],
        [ctx.rpc(), "stderr;text:x", ["fake-app-server: stderr one", "fake-app-server: stderr two"]],
        [ctx.cli("generic"), "stderr", ["fake-cli: stderr one", "fake-cli: stderr two"]],
      ];
      for (const [spec, text, lines] of cases) {
        const sid = (await h.open(spec)).sessionId;
        await h.api.sessionPrompt({ sessionId: sid, text });
        const got = h.events(sid).filter((e) => e.type === "stderr").map((e) => (e as { text: string }).text.trimEnd());
        for (const l of lines) assert.ok(got.includes(l), `${spec.lane}: no stderr event ${JSON.stringify(l)}; got ${JSON.stringify(got)}`);
      }
      assert.equal(await h.end(), 0);
    },
  },
];
