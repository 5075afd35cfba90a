// lanes.md: the acp, rpc (codexAppServer) and cli lanes, each against a scripted fake.
import assert from "node:assert/strict";
import type { AgentEvent, PermissionRequest, PermissionResolvedEvent } from "../../../generated/ts/types.js";
import type { Host } from "../harness/client.js";
import { sleep, type Check, type CheckContext } from "../harness/context.js";
import { describe } from "../harness/procs.js";

const ofType = <T extends AgentEvent["type"]>(h: Host, sid: string, type: T) =>
  h.events(sid).filter((e) => e.type === type) as Extract<AgentEvent, { type: T }>[];

/** Opens a capability-tier session; an implementation that declines it makes the check n/a. */
async function openOrSkip(ctx: CheckContext, h: Host, params: Parameters<Host["request"]>[1] & object, what: string) {
  const r = await h.request("session/open", params as never);
  const code = r.error?.data?.code;
  if (code === "unsupported_selector" || code === "invalid_params") ctx.skip(`${what} is not offered: ${r.error?.data?.detail ?? code}`);
  if (r.error) throw new Error(`session/open failed: ${code} ${r.error.data?.detail ?? r.error.message}`);
  return r.result as { sessionId: string; nativeSessionId: string | null; capabilities: { resume: boolean; lane: string } };
}

export const acpChecks: Check[] = [
  {
    id: "R-ACP-1/open-result",
    covers: ["R-ACP-1"],
    title: "open reports lane acp, the agent's session id, agentInfo and the offered modes and models",
    async run(ctx) {
      const h = ctx.start();
      const s = await h.open(ctx.acp());
      assert.equal(s.capabilities.lane, "acp");
      assert.match(s.nativeSessionId ?? "", /^fake-\d+-1$/);
      assert.deepEqual(s.agentInfo && { name: s.agentInfo.name, version: s.agentInfo.version }, { name: "fake-agent", version: "0.0.1" });
      assert.deepEqual((s.sessionState?.modes as any)?.availableModes?.map((m: any) => m.id), ["ask", "code"]);
      assert.ok(s.sessionState?.models, "sessionState.models as the agent returned them");
      const n = await h.open(ctx.acp(["--agent-info-missing"]));
      assert.equal(n.agentInfo, null, "agentInfo is null when the agent sent none");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ACP-1/handshake-failures",
    covers: ["R-ACP-1", "R-CORE-3"],
    title: "protocol 2 is initialize_failed; an auth error auth_required; an agent dying in initialize spawn_failed; nothing left running",
    async run(ctx) {
      const h = ctx.start();
      for (const [flag, code] of [
        ["--protocol", "initialize_failed"],
        ["--auth-required", "auth_required"],
        ["--crash-on-init", "spawn_failed"],
      ] as const) {
        const flags = flag === "--protocol" ? [flag, "2"] : [flag];
        await h.fail("session/open", { spec: ctx.acp(flags) }, code);
        const left = await ctx.waitNoLeftovers(3000);
        assert.deepEqual(left, [], `${flag}: the agent was left running: ${describe(left)}`);
      }
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ACP-2/update-mapping",
    covers: ["R-ACP-2", "R-CORE-6"],
    title: "message chunks, usage and stop reasons map; unknown updates and non-JSON lines arrive as raw events",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      const r = await h.api.sessionPrompt({ sessionId: sid, text: "text:Hello;usage;unknown;noise;stop:max_tokens" });
      assert.equal(r.stopReason, "maxTokens");
      assert.equal(r.text, "Helloafter noise");
      assert.equal(r.usage?.inputTokens, 100);
      assert.equal(r.usage?.outputTokens, 20);
      const usage = ofType(h, sid, "usage");
      assert.ok(usage.some((u) => u.contextUsedTokens === 5000 && u.contextWindowTokens === 100000 && u.costUsd === 0.25), `usage events: ${JSON.stringify(usage)}`);
      const raw = ofType(h, sid, "raw");
      assert.ok(raw.some((e) => JSON.stringify(e.payload).includes("wild_new_thing")), "an unknown update kind must arrive as raw");
      assert.ok(raw.some((e) => JSON.stringify(e.payload).includes("this is not JSON")), "a non-JSON stdout line must arrive as raw");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ACP-3/permission-relay",
    covers: ["R-ACP-3", "R-PERM-1"],
    title: "the host's choice reaches the agent; the request is flattened (kind from the earlier tool_call) and reported as permissionResolved by host",
    async run(ctx) {
      const h = ctx.start();
      let seen: PermissionRequest | undefined;
      h.onPermission = (p) => {
        seen = p;
        return { result: { selected: "yes" } };
      };
      const sid = (await h.open(ctx.acp())).sessionId;
      const r = await h.api.sessionPrompt({ sessionId: sid, text: "permission" });
      assert.equal(r.text, "outcome:selected:yes");
      assert.ok(seen);
      assert.equal(seen.sessionId, sid);
      assert.equal(seen.toolCallId, "tc-1");
      assert.equal(seen.kind, "execute");
      assert.equal(seen.title, "Do the thing");
      assert.deepEqual(seen.contentTexts, ["rm -rf build"]);
      assert.deepEqual(seen.options.map((o) => [o.optionId, o.kind]), [["yes", "allowOnce"], ["always", "allowAlways"], ["no", "rejectOnce"]]);
      assert.equal((seen.raw as any)?.toolCall?.toolCallId, "tc-1", "raw carries the agent's own request");
      const res = ofType(h, sid, "permissionResolved");
      assert.deepEqual(res, [{ type: "permissionResolved", toolCallId: "tc-1", outcome: "selected", optionId: "yes", decidedBy: "host" }]);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ACP-4/presets",
    covers: ["R-ACP-4"],
    title: "readOnly, acceptEdits and bypass decide without asking the host, never with an always option",
    async run(ctx) {
      const h = ctx.start();
      let asked = 0;
      h.onPermission = () => {
        asked++;
        return { result: { selected: "always" } };
      };
      for (const [preset, kind, expected, host] of [
        ["readOnly", "execute", "outcome:selected:no", false],
        ["readOnly", "read", "outcome:selected:yes", false],
        ["acceptEdits", "edit", "outcome:selected:yes", false],
        ["acceptEdits", "execute", "outcome:selected:always", true],
        ["bypass", "execute", "outcome:selected:yes", false],
      ] as const) {
        const before = asked;
        const sid = (await h.open(ctx.acp(), { options: { permission: preset } })).sessionId;
        const r = await h.api.sessionPrompt({ sessionId: sid, text: `permission:${kind}` });
        assert.equal(r.text, expected, `${preset} with a ${kind} tool`);
        assert.equal(asked - before, host ? 1 : 0, `${preset} with a ${kind} tool ${host ? "asks" : "does not ask"} the host`);
        const res = ofType(h, sid, "permissionResolved") as PermissionResolvedEvent[];
        assert.equal(res[0]?.decidedBy, host ? "host" : "policy", `${preset}/${kind}: permissionResolved.decidedBy`);
      }
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ACP-5/resume-replays-history",
    covers: ["R-ACP-5", "R-OPEN-1"],
    title: "resume replays the history as events before the open response; an agent without session/load makes resume unsupported_selector",
    async run(ctx) {
      const h = ctx.start();
      const s = await openOrSkip(ctx, h, { spec: ctx.acp(), resume: "fake-old-session" }, "ACP resume");
      const open = h.received.find((x) => x.msg?.result?.sessionId === s.sessionId)!;
      const evs = h.eventsWithSeq(s.sessionId);
      assert.deepEqual(
        evs.map((e) => [e.event.type, (e.event as { text?: string }).text]),
        [
          ["userMessageChunk", "earlier question"],
          ["messageChunk", "earlier answer"],
        ],
      );
      for (const e of evs) assert.ok(e.seq < open.seq, "replayed history arrives before the open response");
      assert.equal(s.nativeSessionId, "fake-old-session");
      const e = await h.fail("session/open", { spec: ctx.acp(["--no-load"]), resume: "x" }, "unsupported_selector");
      assert.equal(e.data?.stage, "open");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ACP-6/early-updates",
    covers: ["R-ACP-6"],
    title: "updates sent before session/new is answered arrive before the open response, under the sidecar's session id",
    async run(ctx) {
      const h = ctx.start();
      const s = await h.open(ctx.acp(["--early-updates"]));
      const open = h.received.find((x) => x.msg?.result?.sessionId === s.sessionId)!;
      const evs = h.eventsWithSeq(s.sessionId);
      assert.ok(evs.some((e) => e.event.type === "messageChunk" && e.event.text === "early"), `events: ${JSON.stringify(evs.map((e) => e.event))}`);
      for (const e of evs) assert.ok(e.seq < open.seq, "early updates arrive before the open response");
      assert.equal(await h.end(), 0);
    },
  },
];

export const rpcChecks: Check[] = [
  {
    id: "R-RPC-1/turns",
    covers: ["R-RPC-1"],
    title: "codexAppServer: open reports the thread id; deltas become message chunks; completed → endTurn; failed → agent_failed; the session goes on",
    async run(ctx) {
      const h = ctx.start();
      const s = await h.open(ctx.rpc());
      assert.equal(s.capabilities.lane, "rpc");
      assert.match(s.nativeSessionId ?? "", /^thr_fake_\d+$/);
      assert.equal(s.agentInfo, null);
      const r = await h.api.sessionPrompt({ sessionId: s.sessionId, text: "text:hello world" });
      assert.equal(r.stopReason, "endTurn");
      assert.equal(r.text, "hello world");
      assert.equal(h.text(s.sessionId), "hello world");
      const e = await h.fail("session/prompt", { sessionId: s.sessionId, text: "fail:the model is down" }, "agent_failed");
      assert.match(e.data?.detail ?? "", /the model is down/);
      assert.equal((await h.api.sessionPrompt({ sessionId: s.sessionId, text: "text:again" })).text, "again");
      await h.api.sessionClose({ sessionId: s.sessionId });
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-RPC-2/R-CANCEL-1/interrupt",
    covers: ["R-RPC-2", "R-CANCEL-1"],
    title: "codexAppServer: cancel interrupts the turn, which settles cancelled promptly; the next turn works",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.rpc())).sessionId;
      const turn = h.prompt(sid, "slow:200");
      await h.waitFor(() => h.events(sid).length >= 2, 10_000, "the turn's deltas");
      assert.deepEqual(await h.api.sessionCancel({ sessionId: sid }), {});
      const r = await Promise.race([turn, sleep(8000).then(() => null)]);
      assert.ok(r, "the turn did not settle within 8 s of the cancel");
      assert.equal(r.result?.stopReason, "cancelled", JSON.stringify(r.result ?? r.error));
      assert.equal((await h.api.sessionPrompt({ sessionId: sid, text: "text:next" })).text, "next");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-RPC-3/approval-relay",
    covers: ["R-RPC-3"],
    title: "codexAppServer: a command approval is relayed with the offered decisions as options; the host's allowOnce choice is sent back as accept",
    async run(ctx) {
      const h = ctx.start();
      let seen: PermissionRequest | undefined;
      h.onPermission = (p) => {
        seen = p;
        const allow = p.options.find((o) => o.kind === "allowOnce");
        return allow ? { result: { selected: allow.optionId } } : { result: { cancelled: true } };
      };
      const sid = (await h.open(ctx.rpc(), { options: { permission: "ask" } })).sessionId;
      const r = await h.api.sessionPrompt({ sessionId: sid, text: "cmd:touch x" });
      assert.ok(seen, "no permission/request");
      assert.equal(seen.kind, "execute");
      const kinds = seen.options.map((o) => o.kind);
      for (const k of ["allowOnce", "allowAlways", "rejectOnce"] as const) assert.ok(kinds.includes(k), `options lack ${k}: ${JSON.stringify(seen.options)}`);
      assert.match(r.text ?? "", /decision="accept"/);
      assert.equal(await h.end(), 0);
    },
  },
];

export const cliChecks: Check[] = [
  {
    id: "R-CLI-1/generic",
    covers: ["R-CLI-1", "R-SUP-2"],
    title: "generic driver: the prompt is the last argument, stdout streams as message chunks, exit 0 is endTurn, exit 2 is agent_exited with the stderr tail",
    async run(ctx) {
      const h = ctx.start();
      const s = await h.open(ctx.cli("generic"));
      assert.equal(s.capabilities.lane, "cli");
      assert.equal(s.agentInfo, null);
      const r = await h.api.sessionPrompt({ sessionId: s.sessionId, text: "hello there" });
      assert.equal(r.stopReason, "endTurn");
      assert.equal(r.text, "echo: hello there\n");
      assert.equal(h.text(s.sessionId), "echo: hello there\n");
      assert.equal((await h.api.sessionPrompt({ sessionId: s.sessionId, text: "again" })).text, "echo: again\n", "one process per turn");
      const e = await h.fail("session/prompt", { sessionId: s.sessionId, text: "fail now" }, "agent_exited");
      assert.equal(e.data?.uncertainEffect, true);
      assert.match(e.data?.detail ?? "", /cannot answer that/);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CLI-2/codex-exec-stream",
    covers: ["R-CLI-2"],
    title: "codex driver: thread.started gives the native id, agent_message items become text, usage is reported, turn.failed is agent_failed",
    async run(ctx) {
      const h = ctx.start();
      const s = await openOrSkip(ctx, h, { spec: ctx.cli("codex") }, "the codex cli driver");
      const r = await h.api.sessionPrompt({ sessionId: s.sessionId, text: "hi" });
      assert.equal(r.stopReason, "endTurn");
      assert.equal(r.text, "echo: hi");
      const info = ofType(h, s.sessionId, "sessionInfo");
      assert.ok(s.nativeSessionId === "conf-thread-1" || info.some((i) => i.nativeSessionId === "conf-thread-1"), "the thread id is reported");
      const usage = r.usage ?? ofType(h, s.sessionId, "usage")[0];
      assert.equal(usage?.inputTokens, 10);
      assert.equal(usage?.outputTokens, 5);
      const e = await h.fail("session/prompt", { sessionId: s.sessionId, text: "error" }, "agent_failed");
      assert.match(e.data?.detail ?? "", /mock failure/);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CLI-3/R-CANCEL-1/cancel-ends-group",
    covers: ["R-CLI-3", "R-CANCEL-1", "R-SUP-1"],
    title: "generic driver: cancel during a turn settles cancelled and ends the process group (the program's own child too)",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.cli("generic"))).sessionId;
      const turn = h.prompt(sid, "slow");
      await h.waitFor(() => h.text(sid).length >= 4, 10_000, "the program's output");
      assert.ok(ctx.leftovers().length >= 2, "the program and its child run");
      assert.deepEqual(await h.api.sessionCancel({ sessionId: sid }), {});
      const r = await Promise.race([turn, sleep(15_000).then(() => null)]);
      assert.ok(r, "the turn did not settle within 15 s of the cancel");
      assert.equal(r.result?.stopReason, "cancelled", JSON.stringify(r.result ?? r.error));
      const left = await ctx.waitNoLeftovers(3000);
      assert.deepEqual(left, [], `the turn's process group survived: ${describe(left)}`);
      assert.equal(await h.end(), 0);
    },
  },
];
