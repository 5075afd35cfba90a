// §11 prompt content and MCP servers, §13 shared agent processes (protocol 1.2): capability
// checks. The suite's schema has no such fields yet, so requests go out raw (Host.send); an
// implementation that declines the field (invalid_params, unsupported_selector) makes the
// requirement n/a.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AgentSpec } from "../../../generated/ts/types.js";
import type { Host, Reply } from "../harness/client.js";
import type { Check, CheckContext } from "../harness/context.js";

/** A 1x1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const DECLINED = ["invalid_params", "unsupported_selector"];

function declinedOrOk(ctx: CheckContext, r: Reply<any>, feature: string): void {
  if (r.error && DECLINED.includes(r.error.data?.code ?? "")) ctx.skip(`${feature} declined (${r.error.data?.code}: ${r.error.data?.detail ?? r.error.message})`);
  assert.ok(r.result, `${feature}: ${JSON.stringify(r.error)}`);
}

async function openRaw(h: Host, params: Record<string, unknown>): Promise<Reply<any>> {
  return h.send("session/open", params);
}

function expectCode(r: Reply<any>, code: string, what: string): void {
  assert.ok(r.error, `${what} was accepted: ${String(JSON.stringify(r.result)).slice(0, 300)}`);
  assert.equal(r.error.data?.code, code, `${what} failed with ${r.error.data?.code} (${r.error.data?.detail ?? r.error.message}), expected ${code}`);
}

const mcpServer = (env: Record<string, string> = {}) => ({ name: "conformance-mcp", command: process.execPath, args: ["-e", "setTimeout(() => {}, 1)"], env });

/** Lines of the fake CLI's start log (one per process started). */
const starts = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);

/** Two sessions opened with equal shared specs (n/a when `share` is declined). */
async function openSharedPair(ctx: CheckContext, h: Host): Promise<[string, string]> {
  const a = await openRaw(h, { spec: shared(ctx) });
  declinedOrOk(ctx, a, "AcpAgentSpec.share");
  const b = await openRaw(h, { spec: shared(ctx) });
  assert.ok(b.result, `the second shared open failed: ${JSON.stringify(b.error)}`);
  return [a.result.sessionId as string, b.result.sessionId as string];
}

function shared(ctx: CheckContext): AgentSpec {
  return { ...ctx.acp(), share: { maxSessions: 4, idleMs: 1000 } } as unknown as AgentSpec;
}

export const capabilityChecks: Check[] = [
  {
    id: "R-CONTENT-2/bad-image",
    covers: ["R-CONTENT-2"],
    title: "(1.2) when prompt content is offered: image data that is not base64 and a mime type not listed are invalid_params, and the session goes on",
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      declinedOrOk(ctx, await h.send("session/prompt", { sessionId: sid, content: [{ type: "text", text: "text:content works" }] }), "prompt content");
      const notBase64 = await h.send("session/prompt", { sessionId: sid, text: "text:x", content: [{ type: "image", mimeType: "image/png", data: "this is *not* base64!" }] });
      expectCode(notBase64, "invalid_params", "image data that is not base64");
      const badMime = await h.send("session/prompt", { sessionId: sid, text: "text:x", content: [{ type: "image", mimeType: "image/x-conformance", data: PNG }] });
      expectCode(badMime, "invalid_params", "an image of an unlisted mime type");
      const after = await h.prompt(sid, "text:after");
      assert.ok(after.result, "the session serves a turn after the refused prompts");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CONTENT-1/generic-cli-image",
    covers: ["R-CONTENT-1"],
    title: "(1.2) when prompt content is offered: an image to the generic CLI driver fails unsupported_content (stage prompt) before the turn starts; a text block works",
    async run(ctx) {
      const h = ctx.start();
      const log = path.join(ctx.tmp, "starts.log");
      const sid = (await h.open(ctx.cli("generic", {}, { A4AA_CONFORMANCE_LOG: log }))).sessionId;
      declinedOrOk(ctx, await h.send("session/prompt", { sessionId: sid, content: [{ type: "text", text: "hello content" }] }), "prompt content");
      assert.match(h.text(sid), /hello content/, "the text block did not reach the agent");
      const before = starts(log);
      const r = await h.send("session/prompt", { sessionId: sid, text: "describe", content: [{ type: "image", mimeType: "image/png", data: PNG }] });
      expectCode(r, "unsupported_content", "an image to the generic CLI driver");
      assert.equal(r.error?.data?.stage, "prompt");
      assert.equal(starts(log), before, "the agent was started for a prompt it cannot take");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-MCP-1/generic-cli-refuses",
    covers: ["R-MCP-1"],
    title: "(1.2) when options.mcpServers is offered (an ACP open takes it): the generic CLI lane refuses it with unsupported_selector (stage open) before spawning",
    async run(ctx) {
      const h = ctx.start();
      declinedOrOk(ctx, await openRaw(h, { spec: ctx.acp(), options: { mcpServers: [mcpServer()] } }), "options.mcpServers on the acp lane");
      const log = path.join(ctx.tmp, "starts.log");
      const r = await openRaw(h, { spec: ctx.cli("generic", {}, { A4AA_CONFORMANCE_LOG: log }), options: { mcpServers: [mcpServer()] } });
      expectCode(r, "unsupported_selector", "mcpServers on the generic CLI lane");
      assert.equal(r.error?.data?.stage, "open");
      assert.equal(starts(log), 0, "the CLI agent was started");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-MCP-2/env-rules",
    covers: ["R-MCP-2"],
    title: "(1.2) when options.mcpServers is offered: an MCP server env with a bad name or a NUL in a value is env_refused before anything is spawned",
    async run(ctx) {
      const h = ctx.start();
      declinedOrOk(ctx, await openRaw(h, { spec: ctx.acp(), options: { mcpServers: [mcpServer({ CONF_OK: "1" })] } }), "options.mcpServers on the acp lane");
      const live = ctx.leftovers().length;
      expectCode(await openRaw(h, { spec: ctx.acp(), options: { mcpServers: [mcpServer({ "BAD-NAME": "x" })] } }), "env_refused", "an MCP env name with a dash");
      expectCode(await openRaw(h, { spec: ctx.acp(), options: { mcpServers: [mcpServer({ CONF_NUL: "a\u0000b" })] } }), "env_refused", "an MCP env value with a NUL");
      assert.equal(ctx.leftovers().length, live, "an agent was spawned for a refused open");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-SHARE-1/own-events",
    covers: ["R-SHARE-1"],
    title: "(1.2) when share is offered: two sessions on one shared ACP process prompting distinct texts concurrently each get only their own events; cancel of one leaves the other's turn",
    async run(ctx) {
      const h = ctx.start();
      const [sa, sb] = await openSharedPair(ctx, h);
      const [ra, rb] = await Promise.all([h.prompt(sa, "slow:10;text:ALPHA-only;pids"), h.prompt(sb, "slow:10;text:BRAVO-only;pids")]);
      assert.ok(ra.result && rb.result, `a turn failed: ${JSON.stringify(ra.error ?? rb.error)}`);
      assert.ok(h.text(sa).includes("ALPHA-only") && !h.text(sa).includes("BRAVO"), `session A's events: ${h.text(sa).slice(0, 300)}`);
      assert.ok(h.text(sb).includes("BRAVO-only") && !h.text(sb).includes("ALPHA"), `session B's events: ${h.text(sb).slice(0, 300)}`);
      const pid = (s: string) => /pid (\d+)/.exec(h.text(s))?.[1];
      assert.equal(pid(sa), pid(sb), "equal specs with share did not reuse one process");
      const slow = h.prompt(sb, "slow:30;text:B-finished");
      await h.waitFor(() => h.text(sb).includes("3 "), 10_000, "session B's second turn to stream");
      const ca = await h.request("session/cancel", { sessionId: sa });
      assert.ok(ca.result, "cancel of the idle session");
      const rb2 = await slow;
      assert.equal(rb2.result?.stopReason, "endTurn", `B's turn after A's cancel: ${JSON.stringify(rb2.error ?? rb2.result)}`);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-SHARE-2/crash-fails-all",
    covers: ["R-SHARE-2"],
    title: "(1.2) when share is offered: a crash of the shared process fails the turns of both its sessions with agent_exited; the next open starts a fresh process",
    async run(ctx) {
      const h = ctx.start();
      const [sa, sb] = await openSharedPair(ctx, h);
      const rb = h.prompt(sb, "slow:200");
      await h.waitFor(() => h.text(sb).includes("2 "), 10_000, "session B's turn to stream");
      const ra = await h.prompt(sa, "crash");
      assert.equal(ra.error?.data?.code, "agent_exited", `the crashing turn: ${JSON.stringify(ra.error ?? ra.result)}`);
      const rbDone = await rb;
      assert.equal(rbDone.error?.data?.code, "agent_exited", `the other session's turn on the crashed process: ${JSON.stringify(rbDone.error ?? rbDone.result)}`);
      const c = await openRaw(h, { spec: shared(ctx) });
      assert.ok(c.result, `an open after the crash failed: ${JSON.stringify(c.error)}`);
      const rc = await h.prompt(c.result.sessionId, "text:fresh");
      assert.ok(rc.result, `a turn on the fresh process failed: ${JSON.stringify(rc.error)}`);
      assert.equal(await h.end(), 0);
    },
  },
];
