// §1 transport and framing, and the unnumbered method rules of §1/§2.
import assert from "node:assert/strict";
import { METHODS } from "../../../generated/ts/methods.js";
import { canonical, type Reply } from "../harness/client.js";
import { sleep, type Check } from "../harness/context.js";
import { treePeakRss } from "../harness/procs.js";
import { rawMember } from "../harness/raw-json.js";

const LIMIT = 64 * 1024 * 1024;

export const framingChecks: Check[] = [
  {
    id: "R-FRAME-1/stdout-only-protocol",
    covers: ["R-FRAME-1"],
    title: "a session whose agent writes stderr and non-JSON noise: every stdout line is a JSON-RPC message; UTF-8 survives",
    async run(ctx) {
      const h = ctx.start({ args: ["--log-level", "debug"] });
      const s = await h.open(ctx.acp());
      const out = await h.api.sessionPrompt({ sessionId: s.sessionId, text: "stderr;noise;text:naïve ✓ 😀" });
      assert.equal(out.text?.endsWith("naïve ✓ 😀"), true, `the UTF-8 text came back as ${JSON.stringify(out.text)}`);
      const r = await h.request("ping", {}, { id: "ïd-✓-😀" });
      assert.equal(r.id, "ïd-✓-😀");
      await h.api.sessionClose({ sessionId: s.sessionId });
      assert.equal(await h.end(), 0);
      // Every line was checked as it arrived (a non-JSON line is a violation).
      assert.ok(h.received.length >= 4, "the sidecar answered");
    },
  },
  {
    id: "R-FRAME-2/exact-limit",
    covers: ["R-FRAME-2"],
    title: "a line of exactly 64 MiB, plus \\r, is parsed and answered",
    heavy: true,
    timeoutMs: 90_000,
    async run(ctx) {
      const h = ctx.start();
      const prefix = '{"jsonrpc":"2.0","method":"ping","id":"';
      const suffix = '"}';
      const idLen = LIMIT - prefix.length - suffix.length;
      const line = Buffer.alloc(LIMIT + 2, 120);
      line.write(prefix, 0, "latin1");
      line.write(suffix, LIMIT - suffix.length, "latin1");
      line[LIMIT] = 13;
      line[LIMIT + 1] = 10;
      const reply = h.expectReply("x".repeat(idLen), "ping");
      h.wire.note(`host sends a ping whose line is exactly ${LIMIT} bytes, then \\r\\n`);
      await h.wire.writeRaw(line);
      const r = await Promise.race([reply, sleep(60_000).then(() => null)]);
      assert.ok(r, "no answer to the 64 MiB ping within 60 s");
      assert.equal(r.error, undefined, `the 64 MiB line was refused: ${JSON.stringify(r.error)}`);
      assert.equal((r.id as string).length, idLen);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-FRAME-2/oversize-discarded",
    covers: ["R-FRAME-2"],
    title: "a line of 64 MiB + 1 byte is answered frame_too_large (id null, -32600), logged, and the next line is served",
    heavy: true,
    timeoutMs: 90_000,
    async run(ctx) {
      const h = ctx.start();
      await h.api.ping();
      const before = h.wire.stderrLength;
      const prefix = '{"jsonrpc":"2.0","method":"ping","id":"';
      const line = Buffer.alloc(LIMIT + 2, 120);
      line.write(prefix, 0, "latin1");
      line.write('"}', LIMIT - 1, "latin1");
      line[LIMIT + 1] = 10;
      h.wire.note(`host sends a ping line of ${LIMIT + 1} bytes`);
      await h.wire.writeRaw(line);
      const after = h.request("ping", {}, { id: "after" });
      const r = await Promise.race([after, sleep(60_000).then(() => null)]);
      assert.ok(r, "no answer to the ping after the oversize line");
      const tooBig = h.received.map((x) => x.msg).find((m) => m && m.id === null && m.error);
      assert.ok(tooBig, "no error response with id null for the oversize line");
      assert.equal(tooBig.error.code, -32600);
      assert.equal(tooBig.error.data?.code, "frame_too_large");
      assert.ok(h.received.findIndex((x) => x.msg === tooBig) < r.seq, "the frame error came before the next answer");
      await h.waitFor(() => h.wire.stderrLength > before, 2000, "a log line about the oversize frame on stderr");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-FRAME-2/bounded-memory",
    covers: ["R-FRAME-2"],
    title: "a 256 MiB line raises the implementation's peak memory by about the 64 MiB limit at most, not by the line",
    heavy: true,
    timeoutMs: 120_000,
    async run(ctx) {
      const h = ctx.start();
      await h.api.ping();
      const pid = h.wire.pid!;
      const before = treePeakRss(pid);
      const chunk = Buffer.alloc(8 * 1024 * 1024, 97);
      h.wire.note("host streams one 256 MiB line in 8 MiB chunks");
      await h.wire.writeRaw(Buffer.from('{"jsonrpc":"2.0","method":"ping","id":"'));
      for (let i = 0; i < 32; i++) await h.wire.writeRaw(chunk);
      await h.wire.writeRaw(Buffer.from('"}\n'));
      await h.request("ping", {}, { id: "after" });
      const growth = treePeakRss(pid) - before;
      h.wire.note(`peak RSS grew by ${(growth / 1048576).toFixed(1)} MiB`);
      assert.ok(
        h.received.some((x) => x.msg?.id === null && x.msg?.error?.data?.code === "frame_too_large"),
        "the 256 MiB line was not answered frame_too_large",
      );
      assert.ok(growth < LIMIT * 1.25, `peak RSS grew by ${(growth / 1048576).toFixed(1)} MiB for a 256 MiB line (bound: 80 MiB)`);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-FRAME-3/garbage-lines",
    covers: ["R-FRAME-3"],
    title: "bad UTF-8, bad JSON and non-JSON-RPC JSON are answered with the right codes; blank lines are ignored; the stream goes on",
    async run(ctx) {
      const h = ctx.start();
      const replies = [7, 8, 9].map((id) => h.expectReply(id, "ping"));
      await h.wire.writeLine(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), "<{\"a\":\"\\xff\\xfe\"} — invalid UTF-8>");
      await h.wire.writeLine("{not json");
      await h.wire.writeLine("");
      await h.wire.writeLine("   \t ");
      await h.wire.writeLine("42");
      await h.wire.writeLine('{"jsonrpc":"2.0","id":7}');
      await h.wire.writeLine('{"jsonrpc":"2.0","id":8,"method":3}');
      await h.wire.writeLine('{"id":9,"method":"ping"}');
      const last = await h.request("ping", {}, { id: "last" });
      assert.equal(last.error, undefined);
      const rs = await Promise.all(replies);
      const before = h.received.filter((x) => x.seq < last.seq).map((x) => x.msg);
      const summary = before.map((m) => [m.id, m.error?.code ?? "result", m.error?.code === -32700 ? m.error?.data?.code : undefined]);
      assert.deepEqual(summary, [
        [null, -32700, "invalid_utf8"],
        [null, -32700, "parse_error"],
        [null, -32600, undefined],
        [7, -32600, undefined],
        [8, -32600, undefined],
        [9, -32600, undefined],
      ]);
      for (const r of rs) assert.equal(r.error?.code, -32600);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-FRAME-4/ids-of-every-kind",
    covers: ["R-FRAME-4"],
    title: "ids of every JSON kind (UUID string, numbers incl. uint64, null, object, array, \"\", true) are echoed verbatim; no id = notification",
    async run(ctx) {
      const h = ctx.start();
      const ids = ['"0b6c3f1e-9f7a-4c1b-8a44-1d2e3f4a5b6c"', "0", "-1", "1.5", "12345678901234567890", "null", '{"a":[1,{"b":null}],"z":"é"}', '[1,"x",{}]', '""', "true"];
      const replies = ids.map((id) => h.expectReply(JSON.parse(id), "ping"));
      for (const id of ids) await h.wire.writeLine(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
      await h.wire.writeLine('{"jsonrpc":"2.0","method":"ping"}');
      const timeout = sleep(10_000).then(() => "timeout" as const);
      const got = await Promise.race([Promise.all(replies), timeout]);
      const echoed = h.wire.transcript.filter((e) => e.dir === "recv").map((e) => rawMember(e.text, "id") ?? "<none>");
      assert.notEqual(got, "timeout", `not every id was answered; ids echoed: ${echoed.join(" ")}`);
      for (const r of got as Reply<unknown>[]) assert.equal(r.error, undefined, `ping with id ${canonical(r.id)} failed`);
      await h.request("ping", {}, { id: "end" });
      assert.equal(h.received.length, ids.length + 1, "a notification-form ping must not be answered");
      assert.ok(echoed.includes("12345678901234567890"), `a uint64 id must keep every digit; echoed: ${echoed.join(" ")}`);
      const norm = (t: string) => canonical(JSON.parse(t));
      for (const id of ids) assert.ok(echoed.map(norm).includes(norm(id)), `id ${id} was not echoed; echoed: ${echoed.join(" ")}`);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-FRAME-5/batches",
    covers: ["R-FRAME-5"],
    title: "a batch gets one array of responses (none for notifications); [] is -32600; a batch of notifications gets nothing",
    async run(ctx) {
      const h = ctx.start();
      await h.sendBatch([{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", method: "ping" }, { jsonrpc: "2.0", id: 2, method: "no/such" }, 5], [1, 2]);
      await h.wire.writeLine("[]");
      await h.wire.writeLine(JSON.stringify([{ jsonrpc: "2.0", method: "ping" }]));
      const end = await h.request("ping", {}, { id: "end" });
      await sleep(200);
      const msgs = h.received.filter((x) => x.seq !== end.seq).map((x) => x.msg);
      const batches = msgs.filter(Array.isArray);
      assert.equal(batches.length, 1, `expected exactly one array answer, got ${batches.length}`);
      const got = (batches[0] as any[]).map((m) => [canonical(m.id), m.error ? m.error.code : "result"]).sort();
      assert.deepEqual(got, [["1", "result"], ["2", -32601], ["null", -32600]].sort());
      const singles = msgs.filter((m) => !Array.isArray(m));
      assert.equal(singles.length, 1, `expected one answer for [] and none for the batch of notifications, got ${singles.length}`);
      assert.equal(singles[0].id, null);
      assert.equal(singles[0].error?.code, -32600);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-FRAME-6/no-head-of-line-blocking",
    covers: ["R-FRAME-6"],
    title: "while a long prompt runs: ping, another session's prompt, cancel and events are not held up",
    async run(ctx) {
      const h = ctx.start();
      const a = (await h.open(ctx.acp())).sessionId;
      const b = (await h.open(ctx.acp())).sessionId;
      const long = h.prompt(a, "slow:200");
      let longDone = false;
      void long.then(() => (longDone = true));
      await h.waitFor(() => h.events(a).length >= 2, 10_000, "the long turn's first events");
      const t0 = Date.now();
      await h.api.ping();
      const pingMs = Date.now() - t0;
      const other = await h.api.sessionPrompt({ sessionId: b, text: "text:B" });
      const otherMs = Date.now() - t0;
      assert.equal(other.text, "B");
      assert.equal(longDone, false, "the long turn (10 s) ended before ping and the other session's turn were answered");
      assert.ok(pingMs < 5000 && otherMs < 5000, `ping took ${pingMs} ms and the other session's turn ${otherMs} ms while a turn was running`);
      const n = h.events(a).length;
      await h.waitFor(() => h.events(a).length > n + 2, 5000, "the long turn's events to keep streaming");
      // The long turn must still be running when the cancel is sent; once cancelled it may
      // settle in the same instant as the cancel's answer.
      assert.equal(longDone, false, "the long turn (10 s) ended before the cancel was sent");
      const t1 = Date.now();
      await h.api.sessionCancel({ sessionId: a });
      assert.ok(Date.now() - t1 < 5000, `cancel took ${Date.now() - t1} ms while a turn was running`);
      const r = await long;
      assert.equal(r.result?.stopReason, "cancelled");
      await h.api.sessionClose({ sessionId: b });
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-FRAME-7/backpressure",
    covers: ["R-FRAME-7"],
    title: "a host that stops reading during a 64 MiB flood of events: memory stays bounded; every event arrives, in order",
    heavy: true,
    timeoutMs: 120_000,
    async run(ctx) {
      const h = ctx.start();
      const sid = (await h.open(ctx.acp())).sessionId;
      const N = 1000;
      const SIZE = 64 * 1024;
      const pid = h.wire.pid!;
      const before = treePeakRss(pid);
      h.wire.pauseReading();
      const turn = h.prompt(sid, `flood:${N}:${SIZE}`);
      await sleep(2000);
      const grown = treePeakRss(pid) - before;
      h.wire.note(`peak RSS grew by ${(grown / 1048576).toFixed(1)} MiB while the host did not read`);
      h.wire.resumeReading();
      const r = await Promise.race([turn, sleep(90_000).then(() => null)]);
      assert.ok(r, "the flood turn did not end within 90 s");
      assert.equal(r.error, undefined, `the flood turn failed: ${JSON.stringify(r.error)}`);
      const chunks = h.events(sid).filter((e) => e.type === "messageChunk") as { text: string }[];
      assert.equal(chunks.length, N, `${chunks.length} of ${N} chunks arrived`);
      chunks.forEach((c, i) => assert.ok(c.text.startsWith(`${i}:`), `chunk ${i} out of order`));
      assert.ok(grown < 64 * 1024 * 1024, `peak RSS grew by ${(grown / 1048576).toFixed(1)} MiB while the host was not reading (bound: 64 MiB)`);
      await h.api.sessionClose({ sessionId: sid });
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CORE-1/ping-and-discover",
    covers: ["R-CORE-1"],
    title: "ping answers the protocol and a version; rpc.discover answers an OpenRPC document with every method and its direction",
    async run(ctx) {
      const h = ctx.start();
      const p = await h.api.ping();
      assert.equal(p.protocol, "a4aa.v1");
      assert.ok(typeof p.version === "string" && p.version.length > 0);
      const doc = (await h.api.rpcDiscover()) as any;
      const byName = new Map<string, any>((doc.methods ?? []).map((m: any) => [m.name, m]));
      for (const [name, info] of Object.entries(METHODS)) {
        assert.ok(byName.has(name), `rpc.discover lacks ${name}`);
        assert.equal(byName.get(name)["x-direction"], info.direction, `${name} direction`);
      }
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-CORE-2/unknown-method-and-invalid-params",
    covers: ["R-CORE-2", "R-CORE-3"],
    title: "unknown and sidecar→host methods are -32601; schema failures are -32602 invalid_params with the validator's messages",
    async run(ctx) {
      const h = ctx.start();
      assert.equal((await h.send("session/delete", {})).error?.code, -32601);
      assert.equal((await h.send("session/event", { sessionId: "s", event: { type: "stderr", text: "x" } })).error?.code, -32601, "session/event is not callable by the host");
      assert.equal((await h.send("permission/request", {})).error?.code, -32601, "permission/request is not callable by the host");
      const cases: [string, unknown][] = [
        ["a typo in the spec", { spec: { ...ctx.acp(), typo: 1 } }],
        ["an unknown lane", { spec: { ...ctx.acp(), lane: "lsp" } }],
        ["a missing spec", { cwd: "/" }],
      ];
      for (const [what, params] of cases) {
        const r = await h.send("session/open", params);
        assert.equal(r.error?.code, -32602, `${what}: expected -32602, got ${JSON.stringify(r.error ?? r.result)}`);
        assert.equal(r.error?.data?.code, "invalid_params", what);
        assert.ok((r.error?.data?.detail ?? "").length > 0, `${what}: data.detail must hold the validator's messages`);
        assert.equal(r.error?.data?.retryable, false, `${what}: invalid params are not retryable`);
      }
      for (const params of [["s", "hi"], { sessionId: "s" }, { sessionId: "s", text: 3 }]) {
        const r = await h.send("session/prompt", params);
        assert.equal(r.error?.data?.code, "invalid_params", `session/prompt ${JSON.stringify(params)}`);
      }
      assert.equal(await h.end(), 0);
    },
  },
];
