// R-CUSTODY-1 through a real `a4aa serve`: a catalog agent (claude-agent-acp, played by the fake
// ACP agent on the sidecar's PATH) opened with options.custody "proxy" calls its model API (a
// loopback upstream) through the sidecar's proxy: the upstream gets the real key, the agent's
// process holds only the placeholder and the proxy's URL, each session has its own token, a
// closed session's token is refused, and what passed is counted (turn span, metrics).
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, test } from "node:test";
import { attr, otlpReceiver } from "../helpers/otlp-receiver.js";
import { processesWithMarker } from "../helpers/procs.js";
import { FAKE_ACP_AGENT, fakeAgentSpec, sidecarSetup, waitNoProcesses } from "../helpers/sidecar.js";
import { scratchDir } from "../helpers/tmp.js";

const KEY = "sk-ant-custody-real-7731";
const setup = sidecarSetup();

const seen: { url: string; key: string | undefined }[] = [];
const upstream = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    seen.push({ url: req.url!, key: req.headers["x-api-key"] as string | undefined });
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("event: message_start\ndata: {}\n\n");
    setTimeout(() => res.end("event: message_stop\ndata: {}\n\n"), 20);
  });
});
await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
after(() => upstream.close());
const UPSTREAM = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/anthropic`;

/** The sidecar's PATH: `claude-agent-acp` (the fake ACP agent) and `opencode` (never started). */
function fakeBin(): string {
  const d = path.join(scratchDir("a4aa-custody-int"), "bin");
  mkdirSync(d);
  writeFileSync(path.join(d, "claude-agent-acp"), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_ACP_AGENT}" "$@"\n`);
  writeFileSync(path.join(d, "opencode"), "#!/bin/sh\nexit 9\n");
  for (const n of ["claude-agent-acp", "opencode"]) chmodSync(path.join(d, n), 0o755);
  return d;
}

const proc = (pid: number, what: "environ" | "cmdline") => {
  try {
    return readFileSync(`/proc/${pid}/${what}`, "latin1");
  } catch {
    return "";
  }
};

test("R-CUSTODY-1: through a4aa serve: the upstream gets the real key, the agent holds a placeholder, tokens are per session and die with it; counted", async () => {
  const otlp = await otlpReceiver();
  after(() => otlp.close());
  const { s, marker } = setup({ args: ["--otel-endpoint", otlp.url], env: { PATH: fakeBin(), HOME: process.env.HOME, LANG: "C.UTF-8" } });
  const open = (extra: Record<string, unknown> = {}) =>
    s.ok("session/open", {
      agent: { id: "claude-agent-acp", credentials: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: UPSTREAM, ANTHROPIC_AUTH_TOKEN: "sk-other-key-9" } },
      env: { A4AA_TEST_MARKER: marker },
      options: { custody: "proxy", permission: "bypass" },
      ...extra,
    });
  const a = await open();
  const b = await open();
  const envOf = async (sid: string) => JSON.parse((await s.ok("session/prompt", { sessionId: sid, text: "env" })).text) as Record<string, string>;
  const envA = await envOf(a.sessionId);
  const envB = await envOf(b.sessionId);
  assert.equal(envA.ANTHROPIC_API_KEY, "a4aa-custody-placeholder");
  assert.equal(envA.ANTHROPIC_AUTH_TOKEN, undefined, "another key variable of the entry never reaches the agent");
  assert.match(envA.ANTHROPIC_BASE_URL!, /^http:\/\/127\.0\.0\.1:\d+\/s\/[0-9a-f]{48}$/);
  assert.notEqual(envA.ANTHROPIC_BASE_URL, envB.ANTHROPIC_BASE_URL, "a token per session");
  assert.equal(new URL(envA.ANTHROPIC_BASE_URL!).port, new URL(envB.ANTHROPIC_BASE_URL!).port, "one proxy per sidecar");

  const out = await s.ok("session/prompt", { sessionId: a.sessionId, text: "model:/v1/messages?beta=true" });
  assert.match(out.text, /^model:200:event: message_start/);
  assert.match(out.text, /message_stop/, "the streamed answer reached the agent whole");
  assert.deepEqual(seen.at(-1), { url: "/anthropic/v1/messages?beta=true", key: KEY }, "the upstream (the host's base URL) got the real key");

  // Every process of the agents' trees: neither environment nor command line holds a key.
  const pids = processesWithMarker(marker);
  assert.ok(pids.length >= 2, "one process per custody session (their environments differ)");
  for (const pid of pids) {
    for (const what of ["environ", "cmdline"] as const) {
      const text = proc(pid, what);
      assert.ok(!text.includes(KEY) && !text.includes("sk-other-key-9"), `pid ${pid}'s ${what} holds a key`);
    }
  }

  // A's token dies with A; B's lives on.
  await s.ok("session/close", { sessionId: a.sessionId });
  const dead = await fetch(`${envA.ANTHROPIC_BASE_URL}/v1/messages`, { method: "POST", body: "{}" });
  assert.equal(dead.status, 403);
  assert.match(await dead.text(), /no session has this token/);
  const stranger = await fetch(`${new URL(envA.ANTHROPIC_BASE_URL!).origin}/v1/messages`, { method: "POST", headers: { "x-api-key": "a4aa-custody-placeholder" }, body: "{}" });
  assert.equal(stranger.status, 403, "no token: refused");
  const requests = seen.length;
  const still = await s.ok("session/prompt", { sessionId: b.sessionId, text: "model:/v1/messages" });
  assert.match(still.text, /^model:200:/);
  assert.equal(seen.length, requests + 1, "only B's request went upstream");
  await s.ok("session/close", { sessionId: b.sessionId });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);

  // Counted: the turn's span says what the proxy carried for it; metrics by agent, refusals.
  const turns = otlp.spans().filter((sp) => sp.name === "invoke_agent claude-agent-acp");
  const modelTurn = turns.find((t) => attr(t, "a4aa.custody.requests") === "1" && attr(t, "a4aa.custody.response_bytes") !== "0");
  assert.ok(modelTurn, `turn spans: ${JSON.stringify(turns.map((t) => t.attributes))}`);
  assert.ok(turns.some((t) => attr(t, "a4aa.custody.requests") === "0"), "a turn without a model call carried nothing");
  const metrics = otlp.bodies.filter((x) => x.path === "/v1/metrics").map((x) => JSON.parse(x.body)).at(-1).resourceMetrics[0].scopeMetrics[0].metrics;
  const total = metrics.find((m: any) => m.name === "a4aa_custody_requests_total");
  assert.equal(total.sum.dataPoints[0].asDouble, 2, JSON.stringify(total));
  const refused = metrics.find((m: any) => m.name === "a4aa_custody_refused_total");
  assert.equal(refused.sum.dataPoints[0].asDouble, 2);
  assert.ok(!otlp.raw().includes(KEY), "the key is in no exported byte");
});

test("R-CUSTODY-1: a spec open and an entry without modelApi refuse custody before spawning", async () => {
  const { s, marker } = setup({ env: { PATH: fakeBin(), HOME: process.env.HOME } });
  const viaSpec = await s.call("session/open", { spec: fakeAgentSpec(marker), options: { custody: "proxy" } });
  assert.equal(viaSpec.error?.data.code, "unsupported_selector");
  assert.match(viaSpec.error!.data.detail, /needs a catalog agent/);
  const opencode = await s.call("session/open", { agent: { id: "opencode", credentials: { ANTHROPIC_API_KEY: KEY } }, env: { A4AA_TEST_MARKER: marker }, options: { custody: "proxy" } });
  assert.equal(opencode.error?.data.code, "unsupported_selector");
  assert.match(opencode.error!.data.detail, /"opencode" has no modelApi/);
  const noKey = await s.call("session/open", { agent: { id: "claude-agent-acp" }, env: { A4AA_TEST_MARKER: marker }, options: { custody: "proxy" } });
  assert.equal(noKey.error?.data.code, "auth_required");
  assert.deepEqual(processesWithMarker(marker), [], "nothing was spawned");
  assert.equal(await s.end(), 0);
});
