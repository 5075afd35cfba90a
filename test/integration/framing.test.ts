// R-FRAME-1 … R-FRAME-7 against a real `a4aa serve` process.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { scratchDir } from "../helpers/tmp.js";
import { TestSidecar, fakeAgentSpec, newMarker, waitNoProcesses, killMarked, type RpcMessage } from "../helpers/sidecar.js";

const started: TestSidecar[] = [];
const markers: string[] = [];
function sidecar(opts?: ConstructorParameters<typeof TestSidecar>[0]) {
  const s = new TestSidecar(opts);
  started.push(s);
  return s;
}
after(async () => {
  for (const s of started) s.kill();
  for (const m of markers) killMarked(m);
});

const LIMIT = 64 * 1024 * 1024;
const ping = (id: unknown) => ({ jsonrpc: "2.0", id, method: "ping" });

function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m![1]) * 1024;
}

test("R-FRAME-1: stdout carries only JSON-RPC messages; logs go to stderr", async () => {
  const marker = newMarker();
  markers.push(marker);
  const s = sidecar({ args: ["--log-level", "debug"] });
  const sid = await s.open(fakeAgentSpec(marker));
  await s.ok("session/prompt", { sessionId: sid, text: "stderr;noise;text:done" });
  await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
  assert.ok(s.rawLines.length > 3);
  for (const line of s.rawLines) {
    const m = JSON.parse(line) as RpcMessage;
    assert.equal(m.jsonrpc, "2.0", line);
  }
  // The agent's noise is logged at warn (issue 14), on stderr, never on stdout.
  await s.stderrMatch(/a4aa warn \[[^\]]+\]: the agent printed a stdout line that is not JSON-RPC/);
  for (const line of s.stderr.split("\n").filter(Boolean)) assert.match(line, /^a4aa (error|warn|info|debug)( \[[^\]]+\])?: /, "stderr holds log lines only");
});

test("R-FRAME-2: a line of exactly 64 MiB (+\\r) parses; one byte more is discarded and answered; the stream goes on", async () => {
  const s = sidecar();
  const prefix = '{"jsonrpc":"2.0","method":"ping","id":"';
  const suffix = '"}';
  const idLen = LIMIT - prefix.length - suffix.length;
  const exact = Buffer.alloc(LIMIT + 1, 120);
  exact.write(prefix, 0, "latin1");
  exact.write(suffix, LIMIT - suffix.length, "latin1");
  exact[LIMIT] = 13; // the optional \r
  s.writeLine(exact);
  await s.waitFor(() => s.received.length >= 1, 30_000, "the 64 MiB ping");
  assert.equal((s.received[0].id as string).length, idLen);
  assert.equal(s.received[0].result.protocol, "a4aa.v1");

  const over = Buffer.alloc(LIMIT + 1, 120);
  over.write(prefix, 0, "latin1");
  over.write(suffix, LIMIT + 1 - suffix.length, "latin1");
  s.writeLine(over);
  s.write(ping("after"));
  await s.waitFor(() => s.received.length >= 3, 30_000, "the oversize answer");
  const [tooBig, next] = s.received.slice(1);
  assert.equal(tooBig.id, null);
  assert.equal(tooBig.error!.code, -32600);
  assert.equal(tooBig.error!.data.code, "frame_too_large");
  assert.equal(tooBig.error!.data.stage, "transport");
  assert.equal(next.id, "after");
  await s.stderrMatch(/exceeds the 67108864-byte limit/);
  assert.equal(await s.end(), 0);
});

test("R-FRAME-2: a 1 GiB line raises peak RSS by about the 64 MiB limit, not by the line", async () => {
  const s = sidecar();
  await s.ok("ping");
  const before = peakRss(s.proc.pid!);
  const chunk = Buffer.alloc(8 * 1024 * 1024, 97);
  chunk.write('{"x":"', 0, "latin1");
  for (let i = 0; i < 128; i++) {
    if (!s.proc.stdin.write(i === 0 ? chunk : chunk.fill(97))) await new Promise((r) => s.proc.stdin.once("drain", r));
  }
  s.proc.stdin.write("\n");
  s.write(ping(2));
  await s.waitFor(() => s.received.some((m) => m.id === 2), 60_000, "the ping after 1 GiB");
  const growth = peakRss(s.proc.pid!) - before;
  assert.equal(s.received.find((m) => m.id === null)?.error?.data.code, "frame_too_large");
  assert.ok(growth < LIMIT * 1.25, `peak RSS grew by ${(growth / 1048576).toFixed(1)} MiB`);
  assert.equal(await s.end(), 0);
});

test("R-FRAME-3: bad UTF-8, bad JSON, and JSON that is not JSON-RPC are answered; blank lines ignored; the stream goes on", async () => {
  const s = sidecar();
  s.writeLine(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
  s.writeLine("{not json");
  s.writeLine("");
  s.writeLine("   \t ");
  s.writeLine("42");
  s.writeLine('{"jsonrpc":"2.0","id":7}');
  s.writeLine('{"jsonrpc":"2.0","id":8,"method":3}');
  s.writeLine('{"id":9,"method":"ping"}');
  s.write(ping("last"));
  await s.waitFor(() => s.received.some((m) => m.id === "last"));
  const summary = s.received.map((m) => [m.id, m.error?.code ?? "ok", m.error?.data?.code ?? null]);
  assert.deepEqual(summary, [
    [null, -32700, "invalid_utf8"],
    [null, -32700, "parse_error"],
    [null, -32600, "invalid_request"],
    [7, -32600, "invalid_request"],
    [8, -32600, "invalid_request"],
    [9, -32600, "invalid_request"],
    ["last", "ok", null],
  ]);
  assert.equal(await s.end(), 0);
});

test("R-FRAME-4: ids of every JSON kind are echoed verbatim", async () => {
  const s = sidecar();
  const ids = ['"a-UUID-0b6c3f1e-9f7a-4c1b-8a44-1d2e3f4a5b6c"', "0", "-1", "1.5", "12345678901234567890", "1e3", "null", '{"a":[1,{"b":null}]}', "[1,\"x\"]", '""', "true"];
  for (const id of ids) s.writeLine(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
  await s.waitFor(() => s.received.length === ids.length);
  const echoed = s.rawLines.map((l) => /"id":(.*),"result"/.exec(l)![1]);
  assert.deepEqual(
    echoed.map((e) => JSON.stringify(JSON.parse(e))).sort(),
    ids.map((i) => JSON.stringify(JSON.parse(i))).sort(),
  );
  assert.ok(echoed.includes("12345678901234567890"), "a uint64 id keeps every digit");
  assert.ok(echoed.includes("1.5"));
  assert.equal(await s.end(), 0);
});

test("R-FRAME-5: batches get an array of responses, none for notifications, -32600 for []", async () => {
  const s = sidecar();
  s.writeLine(JSON.stringify([ping(1), { jsonrpc: "2.0", method: "ping" }, { jsonrpc: "2.0", id: 2, method: "nope" }, 5]));
  s.writeLine("[]");
  s.writeLine(JSON.stringify([{ jsonrpc: "2.0", method: "ping" }]));
  s.write(ping("end"));
  await s.waitFor(() => s.received.length >= 3 && s.received.some((m) => m.id === "end"));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(s.received.length, 3, "nothing for the batch of notifications");
  const batch = s.received.find(Array.isArray) as unknown as RpcMessage[];
  assert.deepEqual(
    batch.map((m) => [m.id, m.result ? "ok" : m.error!.code]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    [[1, "ok"], [2, -32601], [null, -32600]],
  );
  const empty = s.received.find((m) => !Array.isArray(m) && m.id === null)!;
  assert.equal(empty.error!.code, -32600);
  assert.equal(await s.end(), 0);
});

test("R-FRAME-6: a long prompt delays neither ping, cancel, other sessions, nor events", async () => {
  const marker = newMarker();
  markers.push(marker);
  const s = sidecar();
  const a = await s.open(fakeAgentSpec(marker));
  const b = await s.open(fakeAgentSpec(marker));
  const long = s.call("session/prompt", { sessionId: a, text: "slow:100" });
  await s.waitFor(() => s.events(a).length >= 2);
  const t0 = Date.now();
  await s.ok("ping");
  const other = await s.ok("session/prompt", { sessionId: b, text: "text:B" });
  assert.equal(other.text, "B");
  assert.ok(Date.now() - t0 < 2000, "ping and the other session were not held up");
  assert.ok(s.events(a).length < 100, "events of the long turn kept streaming meanwhile");
  await s.ok("session/cancel", { sessionId: a });
  assert.equal((await long).result.stopReason, "cancelled");
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("R-FRAME-7: when the host stops reading, the sidecar stops reading the agent; nothing is dropped or reordered", async () => {
  const marker = newMarker();
  markers.push(marker);
  const s = sidecar();
  const sid = await s.open(fakeAgentSpec(marker));
  const N = 1000;
  const SIZE = 64 * 1024; // ~64 MiB of events in all
  const rssBefore = peakRss(s.proc.pid!);
  s.proc.stdout.pause();
  s.write({ jsonrpc: "2.0", id: "flood", method: "session/prompt", params: { sessionId: sid, text: `flood:${N}:${SIZE}` } });
  await new Promise((r) => setTimeout(r, 1500));
  const grown = peakRss(s.proc.pid!) - rssBefore;
  s.proc.stdout.resume();
  await s.waitFor(() => s.received.some((m) => m.id === "flood"), 60_000, "the flood turn");
  const chunks = s.events(sid).filter((e) => e.type === "messageChunk") as { text: string }[];
  assert.equal(chunks.length, N);
  chunks.forEach((c, i) => assert.ok(c.text.startsWith(`${i}:`), `chunk ${i} in order`));
  assert.ok(grown < 64 * 1024 * 1024, `sidecar peak RSS grew by ${(grown / 1048576).toFixed(1)} MiB while the host was not reading`);
  await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
});

test("unknown methods are -32601; params failing the schema are -32602 invalid_params with the validator's message", async () => {
  const s = sidecar();
  const unknown = await s.call("session/delete", {});
  assert.equal(unknown.error!.code, -32601);
  assert.equal(unknown.error!.data.code, "method_not_found");
  const bad = await s.call("session/open", { spec: { id: "x", lane: "acp", command: { program: "p", args: [], env: { policy: "sanitized" } }, typo: 1 } });
  assert.equal(bad.error!.code, -32602);
  assert.equal(bad.error!.data.code, "invalid_params");
  assert.match(bad.error!.data.detail, /unknown field "typo"/);
  const lane = await s.call("session/open", { spec: { id: "x", lane: "lsp", command: { program: "p", args: [], env: { policy: "sanitized" } } } });
  assert.match(lane.error!.data.detail, /"lane" is "lsp"/);
  const positional = await s.call("session/prompt", ["s", "hi"]);
  assert.equal(positional.error!.data.code, "invalid_params");
  const sidecarMethod = await s.call("session/event", { sessionId: "s", event: { type: "stderr", text: "" } });
  assert.equal(sidecarMethod.error!.code, -32601, "a sidecar→host method is not callable by the host");
  assert.equal(await s.end(), 0);
});

test("10,000 pings in a row and 10,000 with 64 in flight", async () => {
  const s = sidecar();
  let t = Date.now();
  for (let i = 0; i < 10_000; i++) await s.call("ping");
  const sequentialMs = Date.now() - t;
  t = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < 10_000) {
      next++;
      await s.call("ping");
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  const pipelinedMs = Date.now() - t;
  assert.equal(s.received.filter((m) => m.result?.protocol === "a4aa.v1").length, 20_000);
  // Figures for the note, not asserted (noisy machines): see `npm run bench` for the real measurement.
  process.stderr.write(`# 10k sequential pings: ${sequentialMs} ms; 10k with 64 in flight: ${pipelinedMs} ms\n`);
  assert.equal(await s.end(), 0);
});

const DEEP = 100_000;
const deepArray = (n = DEEP) => "[".repeat(n) + "]".repeat(n);

test("R-HOSTILE-1: host lines nested 10^5 deep (params, id, a batch element, a response) get invalid_request for that line; the sidecar serves on", async () => {
  const s = sidecar({ args: ["--log-level", "debug"] });
  s.writeLine(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":${deepArray()}}}`);
  s.writeLine(`{"jsonrpc":"2.0","id":${deepArray()},"method":"ping"}`);
  s.writeLine(`[{"jsonrpc":"2.0","id":8,"method":"ping"},${deepArray()}]`);
  s.writeLine(`{"jsonrpc":"2.0","id":1,"result":${deepArray()}}`);
  s.writeLine(`{"a":${"{\"a\":".repeat(DEEP)}1${"}".repeat(DEEP)}}`);
  const r = await s.call("ping", {});
  assert.equal(r.result.protocol, "a4aa.v1");
  const errs = s.received.filter((m) => m.error);
  assert.equal(errs.length, 5, JSON.stringify(s.received).slice(0, 2000));
  assert.deepEqual(
    errs.map((m) => [m.id, m.error!.code, m.error!.data.code]),
    [
      [7, -32600, "invalid_request"],
      [null, -32600, "invalid_request"],
      [null, -32600, "invalid_request"],
      [null, -32600, "invalid_request"],
      [null, -32600, "invalid_request"],
    ],
  );
  assert.match(errs[0].error!.data.detail, /nests deeper than/);
  assert.equal(await s.end(), 0);
  assert.doesNotMatch(s.stderr, /RangeError|Maximum call stack/);
});

test("R-HOSTILE-1: an agent's session/update nested 10^5 deep and a deep non-JSON-RPC object become raw events; the turn and the sidecar go on", async () => {
  const dir = scratchDir("a4aa-deep-agent");
  const script = path.join(dir, "deep-agent.mjs");
  const base = new URL("../../src/examples/acp-agent-base.js", import.meta.url).href;
  writeFileSync(
    script,
    `import { serveAgent } from ${JSON.stringify(base)};
const deep = "[".repeat(${DEEP}) + "]".repeat(${DEEP});
const conn = serveAgent({
  initialize: () => ({ protocolVersion: 1, agentCapabilities: {} }),
  "session/new": () => ({ sessionId: "deep-1" }),
  "session/prompt": (p) => {
    conn.writeRaw('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"deep-1","update":{"sessionUpdate":"agent_message_chunk","content":' + deep + '}}}');
    conn.writeRaw('{"deep":' + deep + '}');
    // Just under the limit: a legitimate message, handled like any other.
    conn.update("deep-1", { sessionUpdate: "tool_call", toolCallId: "t1", title: "deep", kind: "other", status: "pending", rawInput: JSON.parse("[".repeat(990) + "]".repeat(990)) });
    conn.update("deep-1", { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "still here" } });
    return { stopReason: "end_turn" };
  },
}, {}, { onEnd: () => process.exit(0) });
`,
  );
  const marker = newMarker();
  markers.push(marker);
  const s = sidecar();
  const spec = fakeAgentSpec(marker);
  spec.command.args = [script];
  const sid = await s.open(spec);
  const out = await s.ok("session/prompt", { sessionId: sid, text: "go" });
  assert.equal(out.stopReason, "endTurn");
  const events = s.events(sid);
  const raws = events.filter((e) => e.type === "raw") as { payload: unknown }[];
  assert.equal(raws.length, 2);
  assert.ok(raws.every((e) => typeof e.payload === "string" && e.payload.length > 2 * DEEP));
  assert.ok(events.some((e) => e.type === "messageChunk" && e.text === "still here"));
  assert.ok(events.some((e) => e.type === "toolCall" && e.toolCallId === "t1"), "a message 993 levels deep is served");
  assert.equal((await s.call("ping", {})).result.protocol, "a4aa.v1");
  await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("ids match by JSON value: a host answer with id \"1\" does not settle the sidecar's request 1 (R-FRAME-4)", async () => {
  const marker = newMarker();
  markers.push(marker);
  const s = sidecar({ onPermission: () => "ignore" });
  const sid = await s.open(fakeAgentSpec(marker));
  const turn = s.call("session/prompt", { sessionId: sid, text: "permission" });
  await s.waitFor(() => s.received.some((m) => m.method === "permission/request"));
  const ask = s.received.find((m) => m.method === "permission/request")!;
  assert.equal(typeof ask.id, "number");
  const pick = (kind: string) => (ask.params.options as { optionId: string; kind: string }[]).find((o) => o.kind === kind)!.optionId;
  s.write({ jsonrpc: "2.0", id: String(ask.id), result: { selected: pick("rejectOnce") } });
  await s.call("ping", {});
  s.write({ jsonrpc: "2.0", id: ask.id, result: { selected: pick("allowOnce") } });
  const r = await turn;
  assert.equal(r.result.stopReason, "endTurn");
  const resolved = s.events(sid).find((e) => e.type === "permissionResolved") as { optionId?: string };
  assert.equal(resolved.optionId, pick("allowOnce"));
  await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
});

test("R-HOSTILE-4: a write error on the host channel is logged and shuts the sidecar down as stdin EOF does", async () => {
  const marker = newMarker();
  markers.push(marker);
  const s = sidecar();
  await s.open(fakeAgentSpec(marker));
  // The host stops reading for good: the next answer fails with EPIPE.
  s.proc.stdout.destroy();
  s.write(ping(1));
  s.write(ping(2));
  const t = setTimeout(() => s.kill(), 20_000);
  const code = await s.exited;
  clearTimeout(t);
  assert.notEqual(code, null, "it exited on its own");
  await s.stderrMatch(/writing to the host failed \(EPIPE\)/);
  assert.deepEqual(await waitNoProcesses(marker), []);
});
