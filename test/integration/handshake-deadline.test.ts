// Issue 14 "no open hangs": the handshake deadline of the acp and rpc lanes through a real
// `a4aa serve`, against an agent started in the wrong mode (a banner on stdout, never an
// answer) and one that hangs in initialize; and non-JSON stdout lines never pass silently.
// Issue 31: the same deadline and error for a stream-json CLI.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { AgentSpec } from "../../generated/ts/types.js";
import { sidecarSetup, fakeAgentSpec, waitNoProcesses } from "../helpers/sidecar.js";

const BANNER_AGENT = fileURLToPath(new URL("../fixtures/banner-agent.js", import.meta.url));
const FAKE_APP_SERVER = fileURLToPath(new URL("../fixtures/rpc/fake-app-server.js", import.meta.url));

const setup = sidecarSetup();

function spec(marker: string, lane: "acp" | "rpc", program: string, args: string[], extra: Record<string, unknown> = {}): AgentSpec {
  return {
    id: "wrong-mode",
    lane,
    ...(lane === "rpc" ? { dialect: "codexAppServer" } : {}),
    command: { program: process.execPath, args: [program, ...args], env: { policy: "sanitized", inherit: ["PATH"], set: { A4AA_TEST_MARKER: marker } } },
    ...extra,
  } as AgentSpec;
}

for (const lane of ["acp", "rpc"] as const) {
  test(`issue 14 handshake deadline (${lane}): an agent that prints a banner and never answers fails the open initialize_failed (retryable) with its stdout and stderr in detail, and is stopped`, async () => {
    const { s, marker } = setup();
    const t0 = Date.now();
    const r = await s.call("session/open", { spec: spec(marker, lane, BANNER_AGENT, [], { handshakeTimeoutMs: 700 }) });
    const took = Date.now() - t0;
    assert.ok(took >= 650 && took < 5000, `answered after the deadline, not long after (${took} ms)`);
    const d = r.error?.data;
    assert.equal(d?.code, "initialize_failed", JSON.stringify(r));
    assert.equal(d.stage, "initialize");
    assert.equal(d.retryable, true);
    assert.match(d.detail, /within 700 ms \(no answer to initialize\)/);
    assert.match(d.detail, /Welcome to Banner Agent 1\.0!/, "the first non-JSON stdout lines");
    assert.match(d.detail, /Thinking about your question/, "what it printed after our line");
    assert.match(d.detail, /stderr tail:\nbanner-agent: interactive mode/);
    assert.match(d.detail, lane === "acp" ? /--acp/ : /codex app-server/, "says how to start the agent in its mode");
    assert.deepEqual(await waitNoProcesses(marker), [], "the agent was stopped before the answer");
    // Logged at warn (the default level), never silently dropped.
    await s.stderrMatch(/a4aa warn .*printed a stdout line that is not JSON-RPC.*Welcome to Banner Agent/);
    // Before the session exists, the lines are kept for the detail, not streamed.
    assert.equal(s.events().filter((e) => e.type === "raw").length, 0);
    assert.equal(await s.end(), 0);
  });
}

test("issue 14 handshake deadline: `serve --handshake-timeout` applies when the spec sets none (acp --hang-init)", async () => {
  const { s, marker } = setup(["--handshake-timeout", "500"]);
  const r = await s.call("session/open", { spec: fakeAgentSpec(marker, ["--hang-init"]) });
  assert.equal(r.error?.data?.code, "initialize_failed", JSON.stringify(r));
  assert.match(r.error!.data.detail, /within 500 ms \(no answer to initialize\)/);
  assert.match(r.error!.data.detail, /no stderr output/);
  assert.deepEqual(await waitNoProcesses(marker), []);
  // The sidecar goes on: the next open with a working agent succeeds (its own deadline: a
  // node agent can take over 500 ms to start on a loaded machine).
  const ok = await s.ok("session/open", { spec: fakeAgentSpec(marker, [], { handshakeTimeoutMs: 30_000 }) });
  await s.ok("session/close", { sessionId: ok.sessionId });
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("issue 14 handshake deadline (rpc): the spec's handshakeTimeoutMs bounds a codex that hangs in initialize", async () => {
  const { s, marker } = setup(["--handshake-timeout", "60000"]);
  const r = await s.call("session/open", { spec: spec(marker, "rpc", FAKE_APP_SERVER, ["--hang-init"], { handshakeTimeoutMs: 400 }) });
  assert.equal(r.error?.data?.code, "initialize_failed", JSON.stringify(r));
  assert.match(r.error!.data.detail, /codex app-server \(node\) did not complete the handshake within 400 ms/);
  assert.deepEqual(await waitNoProcesses(marker), []);
  assert.equal(await s.end(), 0);
});

test("issue 31: a stream-json CLI that never answers its handshake fails within `serve --handshake-timeout` with the error an ACP agent gets", async () => {
  const { s, marker } = setup(["--handshake-timeout", "300"]);
  const command = { program: process.execPath, args: [BANNER_AGENT], env: { policy: "sanitized", inherit: ["PATH"], set: { A4AA_TEST_MARKER: marker } } };
  const specs = {
    acp: { id: "never-acp", lane: "acp", command },
    streamJson: { id: "never-claude", lane: "cli", driver: "claudeCode", command },
  };
  const failures: Record<string, any> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const t0 = Date.now();
    const r = await s.call("session/open", { spec });
    const took = Date.now() - t0;
    assert.ok(took >= 280 && took < 5000, `${name}: answered at the deadline, not before nor long after (${took} ms)`);
    failures[name] = r.error?.data;
    assert.ok(failures[name], `${name}: ${JSON.stringify(r)}`);
    assert.match(failures[name].detail, /^the agent \(node\) did not complete the handshake within 300 ms \(no answer to initialize\) and was stopped\. /, name);
    assert.match(failures[name].detail, /a slow agent needs a larger handshakeTimeoutMs or --handshake-timeout/, name);
    // The stderr tail as it was at the deadline (under load the agent may not have printed yet;
    // the 700 ms test above and the unit tests of handshake-deadline.ts check its content).
    assert.match(failures[name].detail, /\n(stderr tail:\nbanner-agent: interactive mode|\(no stderr output\))$/, name);
    assert.deepEqual(await waitNoProcesses(marker), [], `${name}: the agent was stopped`);
  }
  const shape = ({ detail: _detail, ...rest }: Record<string, unknown>) => rest;
  assert.deepEqual(shape(failures.streamJson), shape(failures.acp));
  assert.deepEqual(shape(failures.acp), { code: "initialize_failed", stage: "initialize", retryable: true, uncertainEffect: true });
  assert.match(failures.streamJson.detail, /stream-json/, "the hint names the mode the cli lane speaks");
  assert.equal(await s.end(), 0);
});

test("issue 14: a handshake that completes in time is not cut short by its deadline, and later turns are not bounded by it", async () => {
  // A deadline a loaded machine's node start-up fits in, and a turn (40 chunks 50 ms apart) longer than it.
  const { s, marker } = setup(["--handshake-timeout", "1500"]);
  const sid = await s.open(fakeAgentSpec(marker));
  const t0 = Date.now();
  const r = await s.ok("session/prompt", { sessionId: sid, text: "slow:40" });
  assert.equal(r.stopReason, "endTurn");
  assert.ok(Date.now() - t0 >= 1500, "the turn outlasted the handshake deadline");
  await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
});

test("issue 14: non-JSON stdout lines during a turn are raw events (source stdout) and a warn-level log line", async () => {
  const { s, marker } = setup();
  const sid = await s.open(fakeAgentSpec(marker));
  await s.ok("session/prompt", { sessionId: sid, text: "noise;text:done" });
  const raw = s.events(sid).filter((e) => e.type === "raw" && e.source === "stdout");
  assert.ok(raw.length >= 1, JSON.stringify(s.events(sid)));
  await s.stderrMatch(/a4aa warn \[[^\]]+\]: the agent printed a stdout line that is not JSON-RPC .*sent as a raw event/);
  await s.ok("session/close", { sessionId: sid });
  assert.equal(await s.end(), 0);
});

test("issue 14: the --handshake-timeout flag is checked", async () => {
  const { s } = setup(["--handshake-timeout", "soon"]);
  assert.equal(await s.exited, 2);
  await s.stderrMatch(/--handshake-timeout must be a positive number of milliseconds/);
});
