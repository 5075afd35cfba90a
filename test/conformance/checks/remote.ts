// §15 (protocol 1.3): hosts over a WebSocket or a unix socket, tenants, sessions that
// outlive connections, attach and catch-up, shared sessions, operation ids, slow
// consumers, the fleet endpoints and drain. Capability tier: an implementation that does
// not listen (it exits on --listen) makes these n/a.
import assert from "node:assert/strict";
import net from "node:net";
import path from "node:path";
import { statSync } from "node:fs";
import type { Check } from "../harness/context.js";
import { sleep } from "../harness/context.js";
import type { Host } from "../harness/client.js";
import { freePort, startRemote } from "../harness/remote.js";

/** The seqs of `sid`'s session/event notifications, in the order received. */
const seqs = (h: Host, sid: string): number[] =>
  h.received.filter((r) => r.msg?.method === "session/event" && r.msg.params?.sessionId === sid).map((r) => r.msg.params.seq as number);

/** `xs` is exactly from..to, each once, in order. */
function assertRun(xs: number[], from: number, to: number, what: string): void {
  const want = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  assert.deepEqual(xs, want, `${what}: expected seq ${from}..${to} once each, in order; got ${JSON.stringify(xs.length > 40 ? [...xs.slice(0, 20), "…", ...xs.slice(-20)] : xs)}`);
}

async function listed(h: Host, sid: string) {
  const r = await h.ok("sessions/list", {});
  return r.sessions.find((s) => s.sessionId === sid);
}

export const remoteChecks: Check[] = [
  {
    id: "R-REMOTE-1/ws-host-channel",
    covers: ["R-REMOTE-1"],
    title: "over --listen ws://: one text frame per message, a whole a4aa.v1 channel (open, streamed events, a bad frame answered and the connection goes on); stdin is not read",
    async run(ctx) {
      const r = await startRemote(ctx);
      const h = await r.connect();
      const ping = await h.api.ping();
      assert.equal(ping.protocol, "a4aa.v1");
      const sid = (await h.open(ctx.acp())).sessionId;
      const out = await h.api.sessionPrompt({ sessionId: sid, text: "text:over;text: the wire" });
      assert.equal(out.text, "over the wire");
      assertRun(seqs(h, sid), 1, seqs(h, sid).length, "the session's events");
      const bad = h.expectReply(null, "(a frame that is not JSON)");
      await h.wire.writeLine("{not json");
      const e = await bad;
      assert.equal(e.error?.code, -32700, `a frame that is not JSON: ${JSON.stringify(e)}`);
      await h.api.ping();
      // Without --stdio the listening process does not read its stdin.
      await r.server.wire.writeLine(JSON.stringify({ jsonrpc: "2.0", id: 77, method: "ping" }));
      await sleep(500);
      assert.equal(r.server.received.length, 0, "with --listen and no --stdio, a ping on stdin is answered (stdin is read)");
      await h.api.sessionClose({ sessionId: sid });
      h.wire.endInput();
      r.server.wire.signal("SIGTERM");
      assert.equal(await r.server.waitExit(20_000, "after SIGTERM"), 0);
    },
  },
  {
    id: "R-REMOTE-1/unix",
    covers: ["R-REMOTE-1"],
    title: "--listen unix:PATH: the socket is 0600 and speaks NDJSON exactly as stdio",
    async run(ctx) {
      const sock = path.join(ctx.tmp, "a4aa.sock");
      const r = await startRemote(ctx, ["--listen", `unix:${sock}`]);
      assert.equal(statSync(sock).mode & 0o077, 0, `the socket's mode is ${(statSync(sock).mode & 0o777).toString(8)}, not 0600`);
      const answer = await new Promise<string>((resolve, reject) => {
        const c = net.connect(sock);
        let buf = "";
        const timer = setTimeout(() => (c.destroy(), reject(new Error("no answer on the unix socket within 10 s"))), 10_000);
        c.on("data", (d) => {
          buf += d.toString("utf8");
          if (buf.includes("\n")) {
            clearTimeout(timer);
            c.end();
            resolve(buf.slice(0, buf.indexOf("\n")));
          }
        });
        c.on("error", reject);
        c.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })}\n`);
      });
      const m = JSON.parse(answer);
      assert.equal(m.id, 1);
      assert.equal(m.result?.protocol, "a4aa.v1", answer);
      r.server.wire.signal("SIGTERM");
      assert.equal(await r.server.waitExit(20_000, "after SIGTERM"), 0);
    },
  },
  {
    id: "R-REMOTE-2/auth-origin",
    covers: ["R-REMOTE-2"],
    title: "an upgrade without a matching bearer token is 401, a foreign Origin 403; a listener beyond loopback without --auth-token-file refuses to start (exit 2); no token in the logs",
    async run(ctx) {
      const r = await startRemote(ctx, ["--allow-origin", "https://ok.example", "--log-level", "debug"]);
      assert.equal((await r.upgrade({ authorization: null })).status, 401, "an upgrade without Authorization");
      assert.equal((await r.upgrade({ authorization: `Bearer ${r.tokens.alice}x` })).status, 401, "an upgrade with a wrong token");
      assert.equal((await r.upgrade({ authorization: `Basic ${Buffer.from(`alice:${r.tokens.alice}`).toString("base64")}` })).status, 401, "Basic credentials");
      assert.equal((await r.upgrade({ origin: "https://evil.example" })).status, 403, "a foreign Origin");
      const ok = await r.connect({ origin: "https://ok.example" });
      const sid = (await ok.open(ctx.acp())).sessionId;
      await ok.api.sessionPrompt({ sessionId: sid, text: "text:hi" });
      await ok.api.sessionClose({ sessionId: sid });
      for (const t of Object.values(r.tokens)) assert.ok(!r.server.stderr.includes(t), "a token appears in the sidecar's log");
      r.server.wire.signal("SIGTERM");
      await r.server.waitExit(20_000, "after SIGTERM");
      const port = await freePort();
      const open = ctx.start({ args: ["--listen", `ws://0.0.0.0:${port}`] });
      const code = await open.waitExit(15_000, "when asked to listen on 0.0.0.0 without --auth-token-file");
      assert.equal(code, 2, `listening on 0.0.0.0 without --auth-token-file exited ${code}`);
      assert.match(open.stderr, /auth/i, "the refusal says why (authentication)");
    },
  },
  {
    id: "R-REMOTE-3/tenants",
    covers: ["R-REMOTE-3"],
    title: "another tenant's session is unknown_session (prompt, attach, history) exactly as an id that never existed, its close answers as for a never-known id and closes nothing; sessions/list shows only the tenant's own",
    async run(ctx) {
      const r = await startRemote(ctx);
      const a = await r.connect({ tenant: "alice" });
      const b = await r.connect({ tenant: "bob" });
      const sid = (await a.open(ctx.acp())).sessionId;
      const ghost = `${sid}-never`;
      for (const id of [sid, ghost]) {
        const e1 = await b.fail("session/prompt", { sessionId: id, text: "text:x" }, "unknown_session");
        await b.fail("session/attach", { sessionId: id }, "unknown_session");
        await b.fail("session/history", { sessionId: id }, "unknown_session");
        assert.equal(e1.message, "Unknown session");
      }
      // session/close is idempotent (R-CLOSE-2): another tenant's id answers as a never-known one, and closes nothing.
      assert.deepEqual(await b.ok("session/close", { sessionId: sid }), await b.ok("session/close", { sessionId: ghost }), "closing another tenant's session answers differently from a never-known id");
      assert.equal((await a.api.sessionPrompt({ sessionId: sid, text: "text:still mine" })).text, "still mine", "another tenant's close reached the session");
      assert.equal((await b.ok("sessions/list", {})).sessions.length, 0, "bob lists alice's session");
      assert.ok(await listed(a, sid), "alice does not list her own session");
      await a.api.sessionClose({ sessionId: sid });
    },
  },
  {
    id: "R-REMOTE-3/turn-outlives-connection",
    covers: ["R-REMOTE-3", "R-REMOTE-4"],
    title: "a connection cut mid-turn detaches: the turn goes on and is journaled; a new connection attaches and gets every missed event once",
    async run(ctx) {
      const r = await startRemote(ctx);
      const a = await r.connect();
      const sid = (await a.open(ctx.acp())).sessionId;
      void a.prompt(sid, "slow:20;text:done");
      await a.waitFor(() => seqs(a, sid).length >= 3, 10_000, "three events of the turn");
      a.wire.destroy();
      const seen = Math.max(...seqs(a, sid));
      const b = await r.connect();
      let s = await listed(b, sid);
      for (let i = 0; i < 100 && s && s.state !== "idle"; i++) {
        await sleep(100);
        s = await listed(b, sid);
      }
      assert.ok(s, "the session is gone after its connection was cut");
      assert.equal(s.state, "idle", "the turn did not finish without a connection");
      assert.equal(s.attached, 0);
      const at = await b.ok("session/attach", { sessionId: sid, afterSeq: seen });
      assert.equal(at.lastSeq, s.lastSeq);
      await b.waitFor(() => seqs(b, sid).length >= at.lastSeq - seen, 10_000, "the caught-up events");
      await sleep(200);
      assertRun(seqs(b, sid), seen + 1, at.lastSeq, "the events after the cut");
      assert.ok(b.text(sid).endsWith("done"), "the end of the turn is missing from the catch-up");
      await b.api.sessionClose({ sessionId: sid });
    },
  },
  {
    id: "R-REMOTE-3/detach-ttl",
    covers: ["R-REMOTE-3"],
    title: "a session no connection is attached to is closed after --detach-ttl, its agent stopped",
    async run(ctx) {
      const r = await startRemote(ctx, ["--detach-ttl", "500"]);
      const a = await r.connect();
      const sid = (await a.open(ctx.acp())).sessionId;
      a.wire.endInput();
      await a.wire.exited;
      await sleep(1500);
      const b = await r.connect();
      assert.equal(await listed(b, sid), undefined, "the abandoned session is still listed after --detach-ttl");
      assert.deepEqual(await ctx.waitNoLeftovers(), [], "the abandoned session's agent still runs");
    },
  },
  {
    id: "R-REMOTE-4/attach-mid-turn",
    covers: ["R-REMOTE-4"],
    title: "a second connection attaching mid-turn with afterSeq gets the journaled events, then the live ones: each once, in order; session/detach stops them",
    async run(ctx) {
      const r = await startRemote(ctx);
      const a = await r.connect();
      const b = await r.connect();
      const sid = (await a.open(ctx.acp())).sessionId;
      const turn = a.prompt(sid, "slow:30;text:end");
      await a.waitFor(() => seqs(a, sid).length >= 6, 10_000, "six events");
      const at = await b.ok("session/attach", { sessionId: sid, afterSeq: 2 });
      assert.equal(at.sessionId, sid);
      assert.equal(at.state, "turn");
      assert.ok(at.attached >= 2, `attached is ${at.attached} with two connections`);
      assert.ok((await turn).result, "the turn failed");
      const last = Math.max(...seqs(a, sid));
      await b.waitFor(() => seqs(b, sid).includes(last), 10_000, "the last event on the attached connection");
      assertRun(seqs(b, sid), 3, last, "the attached connection's events");
      assert.ok(b.received.findIndex((m) => m.msg?.result?.lastSeq !== undefined) < b.received.findIndex((m) => m.msg?.method === "session/event"), "events came before the attach answer");
      await b.ok("session/detach", { sessionId: sid });
      await a.api.sessionPrompt({ sessionId: sid, text: "text:after detach" });
      await sleep(200);
      assert.equal(Math.max(...seqs(b, sid)), last, "a detached connection still gets events");
      assert.equal((await listed(a, sid))?.attached, 1);
      await a.api.sessionClose({ sessionId: sid });
    },
  },
  {
    id: "R-REMOTE-5/shared-permission",
    covers: ["R-REMOTE-5"],
    title: "two connections on one session: both get the permission request, the first answer decides, the other gets permission/settled",
    async run(ctx) {
      const r = await startRemote(ctx);
      const a = await r.connect();
      const b = await r.connect();
      const sid = (await a.open(ctx.acp())).sessionId;
      await b.ok("session/attach", { sessionId: sid });
      b.onPermission = async () => {
        await sleep(300);
        return { result: { selected: "no" } };
      };
      a.onPermission = () => ({ result: { selected: "yes" } });
      const out = await a.api.sessionPrompt({ sessionId: sid, text: "permission" });
      assert.equal(out.text, "outcome:selected:yes", "the first answer did not decide");
      assert.equal(a.permissionRequests().length, 1);
      assert.equal(b.permissionRequests().length, 1, "the attached connection was not asked");
      await b.waitFor(() => b.received.some((m) => m.msg?.method === "permission/settled"), 5000, "permission/settled on the other connection");
      const settled = b.received.find((m) => m.msg?.method === "permission/settled")!.msg.params;
      assert.equal(settled.sessionId, sid);
      assert.equal(settled.optionId, "yes");
      assert.ok(settled.decidedBy, "permission/settled without decidedBy");
      await b.waitFor(() => b.text(sid) === "outcome:selected:yes", 5000, "the turn's text on the attached connection");
      await a.api.sessionClose({ sessionId: sid });
    },
  },
  {
    id: "R-REMOTE-6/operation-id",
    covers: ["R-REMOTE-6"],
    title: "a repeated operationId opens and prompts once and gets the first result; the same id with other params is operation_conflict",
    async run(ctx) {
      const r = await startRemote(ctx);
      const a = await r.connect();
      const spec = ctx.acp();
      const [o1, o2] = await Promise.all([a.ok("session/open", { spec, operationId: "op-open-1" }), a.ok("session/open", { spec, operationId: "op-open-1" })]);
      assert.equal(o1.sessionId, o2.sessionId, "two opens with one operationId opened two sessions");
      const b = await r.connect();
      const o3 = await b.ok("session/open", { spec, operationId: "op-open-1" });
      assert.equal(o3.sessionId, o1.sessionId, "the same tenant's retry on another connection opened again");
      assert.equal((await a.ok("sessions/list", {})).sessions.length, 1);
      await a.fail("session/open", { spec, cwd: ctx.tmp, operationId: "op-open-1" }, "operation_conflict");
      const sid = o1.sessionId;
      const [p1, p2] = await Promise.all([
        a.ok("session/prompt", { sessionId: sid, text: "text:once", operationId: "op-p-1" }),
        b.ok("session/prompt", { sessionId: sid, text: "text:once", operationId: "op-p-1" }),
      ]);
      assert.equal(p1.text, "once");
      assert.deepEqual(p2, p1);
      assert.equal(a.events(sid).filter((e) => e.type === "messageChunk").length, 1, "the agent ran the prompt twice");
      await a.fail("session/prompt", { sessionId: sid, text: "text:other", operationId: "op-p-1" }, "operation_conflict");
      await a.api.sessionClose({ sessionId: sid });
    },
  },
  {
    id: "R-REMOTE-7/slow-consumer",
    covers: ["R-REMOTE-7"],
    title: "a connection that stops reading during a 64 MiB stream is closed 1013 slow_consumer and detached; the agent and another connection never stall",
    timeoutMs: 90_000,
    heavy: true,
    async run(ctx) {
      const r = await startRemote(ctx);
      const slow = await r.connect();
      const other = await r.connect();
      const sid = (await slow.open(ctx.acp())).sessionId;
      slow.wire.pauseReading();
      void slow.prompt(sid, "flood:4096:16384;text:end");
      let detached = false;
      for (let i = 0; i < 300 && !detached; i++) {
        const t0 = Date.now();
        const s = await listed(other, sid);
        assert.ok(Date.now() - t0 < 5000, "another connection's request waited on the slow one");
        detached = s?.attached === 0;
        if (!detached) await sleep(100);
      }
      assert.ok(detached, "the connection that stopped reading is still attached after 30 s");
      let s = await listed(other, sid);
      for (let i = 0; i < 300 && s?.state === "turn"; i++) {
        await sleep(100);
        s = await listed(other, sid);
      }
      assert.equal(s?.state, "idle", "the agent's turn stalled with a slow connection");
      slow.wire.resumeReading();
      const x = await Promise.race([slow.wire.exited, sleep(30_000).then(() => null)]);
      assert.ok(x, "the slow connection was never closed");
      assert.equal(x.code, 1013, `the slow connection was closed with ${x.code}, not 1013`);
      assert.equal((slow.wire as unknown as { closeReason: string }).closeReason, "slow_consumer");
      await other.api.sessionClose({ sessionId: sid });
    },
  },
  {
    id: "R-REMOTE-8/endpoints",
    covers: ["R-REMOTE-8"],
    title: "GET /healthz 200, /readyz 200, /metrics 401 without the token and Prometheus text with it, any other path 404",
    async run(ctx) {
      const r = await startRemote(ctx);
      assert.equal((await r.get("/healthz", { authorization: null })).status, 200);
      assert.equal((await r.get("/readyz", { authorization: null })).status, 200);
      assert.equal((await r.get("/metrics", { authorization: null })).status, 401, "/metrics without the token");
      const m = await r.get("/metrics");
      assert.equal(m.status, 200);
      assert.match(m.body, /^# (HELP|TYPE) /m, "/metrics is not Prometheus text");
      assert.ok(!m.body.includes(r.tokens.alice), "a token in /metrics");
      assert.equal((await r.get("/nope")).status, 404);
    },
  },
  {
    id: "R-REMOTE-9/drain",
    covers: ["R-REMOTE-9"],
    title: "SIGTERM on a listening sidecar: /readyz 503, opens fail draining (retryable), the turn in flight finishes, then the process exits 0 with nothing left",
    timeoutMs: 60_000,
    async run(ctx) {
      const r = await startRemote(ctx, ["--drain-timeout", "20000"]);
      const a = await r.connect();
      const sid = (await a.open(ctx.acp())).sessionId;
      const turn = a.prompt(sid, "slow:30;text:finished");
      await a.waitFor(() => seqs(a, sid).length >= 2, 10_000, "the turn under way");
      r.server.wire.signal("SIGTERM");
      let ready = 200;
      for (let i = 0; i < 50 && ready !== 503; i++) {
        ready = (await r.get("/readyz", { authorization: null })).status;
        if (ready !== 503) await sleep(20);
      }
      assert.equal(ready, 503, "/readyz while draining");
      const e = await a.fail("session/open", { spec: ctx.acp() }, "draining");
      assert.equal(e.data?.retryable, true);
      const out = await turn;
      assert.ok(out.result, `the turn in flight failed during the drain: ${JSON.stringify(out.error)}`);
      assert.ok(a.text(sid).endsWith("finished"));
      assert.equal(await r.server.waitExit(30_000, "after the drain"), 0);
      assert.deepEqual(await ctx.waitNoLeftovers(), []);
    },
  },
];
