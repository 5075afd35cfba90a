// §15 listeners and their authentication: R-REMOTE-1, R-REMOTE-2.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { exampleAgentSpec, fakeAgentSpec, processesWithMarker, waitNoProcesses } from "../../helpers/sidecar.js";
import { scratchDir } from "../../helpers/tmp.js";
import { WsHost, remoteSetup } from "./setup.js";

const { start, marker, hosts } = remoteSetup();
const connect = async (url: string, opts = {}) => {
  const h = await WsHost.connect(url, opts);
  hosts.push(h);
  return h;
};

test("R-REMOTE-1: a ws listener speaks the whole of a4aa.v1, one JSON-RPC message per text frame; stdin is not read", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0/a4aa"]);
  const url = await s.url();
  assert.match(url, /^ws:\/\/127\.0\.0\.1:\d+\/a4aa$/);
  const h = await connect(url);
  const ping = await h.request("ping");
  assert.equal(ping.protocol, "a4aa.v1");
  const { sessionId } = await h.request("session/open", { spec: exampleAgentSpec(marker()), cwd: scratchDir("a4aa-remote"), options: { permission: "bypass" } });
  const outcome = await h.request("session/prompt", { sessionId, text: "hello there" });
  assert.equal(outcome.stopReason, "endTurn");
  const seqs = h.events(sessionId).map((e) => e.seq);
  assert.ok(seqs.length > 0);
  assert.deepEqual(seqs, seqs.map((_, i) => i + 1), "events carry seq 1..n in order");
  // A frame holding pretty-printed JSON (newlines as whitespace) is still one message; a batch is one frame.
  h.send(JSON.stringify({ jsonrpc: "2.0", id: "pretty", method: "ping", params: {} }, null, 2));
  assert.equal((await h.waitFor((m) => m.id === "pretty")).result.protocol, "a4aa.v1");
  h.send(JSON.stringify([{ jsonrpc: "2.0", id: "b1", method: "ping" }, { jsonrpc: "2.0", id: "b2", method: "nope" }]));
  const batch = (await h.waitFor((m) => Array.isArray(m))) as unknown as any[];
  assert.equal(batch.length, 2);
  assert.equal(batch[1].error.data.code, "method_not_found");
  // §1's errors, per frame.
  h.send("{not json");
  assert.equal((await h.waitFor((m) => m.error?.data?.code === "parse_error")).id, null);
  // stdin is not read: a request there gets no answer on stdout, and its end shuts nothing down.
  let stdout = "";
  s.proc.stdout.on("data", (d) => (stdout += d));
  s.proc.stdin.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) + "\n");
  assert.equal((await h.request("session/close", { sessionId })).processes.ended >= 1, true);
  assert.equal(stdout, "");
  assert.equal(s.proc.exitCode, null, "stdin EOF does not stop a listening sidecar without --stdio");
  // A different path is not the listener.
  await assert.rejects(WsHost.connect(url.replace(/\/a4aa$/, "/other")), (e: any) => e.status === 404);
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-1: a unix socket listener is NDJSON exactly as stdio, the socket mode 0600", async () => {
  const dir = path.join(scratchDir("a4aa-unix"), "run");
  const sock = path.join(dir, "a4aa.sock");
  const s = start(["--listen", `unix:${sock}`]);
  assert.equal(await s.url(), `unix:${sock}`);
  assert.equal(statSync(sock).mode & 0o777, 0o600);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const c = net.connect(sock);
  let buf = "";
  c.setEncoding("utf8");
  const lines = new Promise<any[]>((resolve) =>
    c.on("data", (d: string) => {
      buf += d;
      const l = buf.split("\n").filter(Boolean);
      if (l.length >= 2) resolve(l.map((x) => JSON.parse(x)));
    }),
  );
  c.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) + "\n" + "{bad\n");
  const got = await lines;
  const a = got.find((m) => m.id === 1);
  const b = got.find((m) => m.id === null);
  assert.equal(a.result.protocol, "a4aa.v1");
  assert.equal(b.error.data.code, "parse_error");
  c.destroy();
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

test("R-REMOTE-2: a listener other machines can reach needs --auth-token-file: serve refuses to start (exit 2, saying why)", async () => {
  const s = start(["--listen", "ws://0.0.0.0:0"]);
  const { code } = await s.exited;
  assert.equal(code, 2);
  assert.match(s.stderr, /--auth-token-file/);
  assert.match(s.stderr, /reachable from other machines/);
});

test("R-REMOTE-2: bearer tokens at the upgrade (401 before any JSON-RPC), Origin (403), tenants see only their sessions; no token in the logs", async () => {
  const dir = scratchDir("a4aa-auth");
  const file = path.join(dir, "tokens");
  const alice = "alice-token-0123456789abcdef";
  const bob = "bob-token-0123456789abcdef0000";
  writeFileSync(file, `# tenants\nalice:${alice}\nbob:${bob}\n`, { mode: 0o600 });
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", file, "--allow-origin", "https://ok.example", "--log-level", "debug"]);
  const url = await s.url();
  await assert.rejects(WsHost.connect(url), (e: any) => e.status === 401);
  await assert.rejects(WsHost.connect(url, { headers: { authorization: `Bearer ${alice}x` } }), (e: any) => e.status === 401);
  await assert.rejects(WsHost.connect(url, { headers: { authorization: `Bearer ${alice}` }, origin: "https://evil.example" }), (e: any) => e.status === 403);
  const a = await connect(url, { headers: { authorization: `Bearer ${alice}` }, origin: "https://ok.example" });
  const b = await connect(url, { headers: { authorization: `Bearer ${bob}` } });
  const { sessionId } = await a.request("session/open", { spec: exampleAgentSpec(marker()), cwd: dir, options: { permission: "bypass" } });
  for (const [method, params] of [
    ["session/prompt", { sessionId, text: "hi" }],
    ["session/attach", { sessionId }],
    ["session/history", { sessionId }],
    ["session/cancel", { sessionId }],
    ["session/detach", { sessionId }],
  ] as const) {
    const r = await b.call(method, params);
    assert.equal(r.error?.data?.code, "unknown_session", `${method} of another tenant's session`);
  }
  assert.deepEqual((await b.request("session/close", { sessionId })).processes, { ended: 0, killed: 0 }, "bob cannot close alice's session");
  assert.deepEqual((await b.request("sessions/list")).sessions, []);
  const listed = (await a.request("sessions/list")).sessions;
  assert.equal(listed.length, 1);
  assert.equal(listed[0].sessionId, sessionId);
  assert.equal(listed[0].agent, "example");
  assert.equal(listed[0].attached, 1);
  assert.equal(listed[0].state, "idle");
  assert.equal((await a.request("session/prompt", { sessionId, text: "still mine" })).stopReason, "endTurn");
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
  assert.ok(!s.stderr.includes(alice) && !s.stderr.includes(bob), "no token in the logs");
  assert.match(s.stderr, /matches no line of --auth-token-file/);
});

test("R-REMOTE-1, R-EOF-1: with --stdio too, stdio and listeners share the loopback tenant, and stdin EOF still closes everything", async () => {
  const s = start(["--listen", "ws://127.0.0.1:0", "--stdio"]);
  const h = await connect(await s.url());
  const m = marker();
  const { sessionId } = await h.request("session/open", { spec: fakeAgentSpec(m), cwd: scratchDir("a4aa-stdio") });
  let out = "";
  s.proc.stdout.setEncoding("utf8");
  const answered = new Promise<any>((resolve) =>
    s.proc.stdout.on("data", (d: string) => {
      out += d;
      const line = out.split("\n").find((l) => l.includes('"id":7'));
      if (line) resolve(JSON.parse(line));
    }),
  );
  s.proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "sessions/list", params: {} }) + "\n");
  const list = await answered;
  assert.equal(list.result.sessions[0].sessionId, sessionId);
  assert.equal(processesWithMarker(m).length, 1);
  s.proc.stdin.end();
  assert.deepEqual(await s.exited, { code: 0, signal: null });
  assert.equal((await h.closed).code, 1001);
  assert.deepEqual(await waitNoProcesses(m), []);
});

test("R-REMOTE-1: a wss listener serves over TLS with --tls-cert and --tls-key, and refuses to start without them", async () => {
  const dir = scratchDir("a4aa-tls");
  const cert = path.join(dir, "cert.pem");
  const key = path.join(dir, "key.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "1", "-keyout", key, "-out", cert], { stdio: "ignore" });
  const bad = start(["--listen", "wss://127.0.0.1:0"]);
  assert.equal((await bad.exited).code, 2);
  assert.match(bad.stderr, /needs --tls-cert FILE and --tls-key FILE/);
  const s = start(["--listen", "wss://127.0.0.1:0", "--tls-cert", cert, "--tls-key", key]);
  const url = await s.url();
  assert.match(url, /^wss:/);
  const h = await connect(url.replace("127.0.0.1", "localhost"), { ca: readFileSync(cert) });
  assert.equal((await h.request("ping")).protocol, "a4aa.v1");
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
});
