// The environment boundary end to end (R-ENV-1 … R-ENV-4): the sidecar runs with
// SECRET_TOKEN in its environment; the agent must never see it unless the policy allows.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { TestSidecar, fakeAgentSpec, newMarker, killMarked, FAKE_ACP_AGENT } from "../helpers/sidecar.js";
import type { AgentSpec, EnvPolicy } from "../../generated/ts/types.js";

const started: TestSidecar[] = [];
const markers: string[] = [];
after(() => {
  for (const s of started) s.kill();
  for (const m of markers) killMarked(m);
});
function setup(args: string[] = []) {
  const s = new TestSidecar({ args, env: { ...process.env, SECRET_TOKEN: "do-not-leak", LC_TIME: "C" } });
  started.push(s);
  const marker = newMarker();
  markers.push(marker);
  return { s, marker };
}
const spec = (marker: string, env: EnvPolicy): AgentSpec =>
  ({ id: "env", lane: "acp", command: { program: process.execPath, args: [FAKE_ACP_AGENT], env: { ...env, set: { ...(env.set ?? {}), A4AA_TEST_MARKER: marker } } } }) as AgentSpec;

async function agentEnv(s: TestSidecar, sessionId: string): Promise<Record<string, string>> {
  return JSON.parse((await s.ok("session/prompt", { sessionId, text: "env" })).text);
}

test("R-ENV-1: a sanitized agent gets exactly the allowlisted names, set, and the session's env — no SECRET_TOKEN", async () => {
  const { s, marker } = setup();
  const sid = await s.open(spec(marker, { policy: "sanitized", inherit: ["PATH", "LC_TIME"], set: { MODE: "x", H: { hostEnv: "HOME" } } }), { env: { MODE: "y" } });
  const env = await agentEnv(s, sid);
  delete env.A4AA_TEST_MARKER;
  // Node itself may add nothing; what is there is exactly what the policy named, plus the
  // one documented name the sidecar adds (R-SUP-5).
  assert.deepEqual(Object.keys(env).sort(), ["A4AA_AGENT_COOKIE", "H", "LC_TIME", "MODE", "PATH"]);
  assert.equal(env.MODE, "y");
  assert.equal(env.H, process.env.HOME);
  assert.equal(await s.end(), 0);
});

for (const [name, env, re, rid] of [
  ["inheriting SECRET_TOKEN", { policy: "sanitized", inherit: ["PATH", "SECRET_TOKEN"] }, /SECRET_TOKEN is not on the allowlist/, "R-ENV-1"],
  ["hostEnv of SECRET_TOKEN", { policy: "sanitized", set: { T: { hostEnv: "SECRET_TOKEN" } } }, /not on the inherit allowlist/, "R-ENV-1"],
  ["a secret reference", { policy: "sanitized", set: { T: { secret: "vault:x" } } }, /secret references are always refused/, "R-ENV-2"],
  ["inheritAll without --trust-host-env", { policy: "inheritAll" }, /--trust-host-env/, "R-ENV-3"],
  ["a bad variable name", { policy: "sanitized", set: { "A-B": "1" } }, /not a valid variable name/, "R-ENV-4"],
  ["a NUL in a value", { policy: "sanitized", set: { A: "x\u0000y" } }, /NUL/, "R-ENV-4"],
] as const) {
  test(`${rid}: ${name} is env_refused before anything is spawned`, async () => {
    const { s, marker } = setup();
    const r = await s.call("session/open", { spec: spec(marker, env as EnvPolicy) });
    assert.equal(r.error!.data.code, "env_refused");
    assert.equal(r.error!.data.stage, "spawn");
    assert.match(r.error!.data.detail, re);
    assert.doesNotMatch(s.stderr, /opening acp agent/, "no agent was started");
    assert.equal(await s.end(), 0);
  });
}

test("R-ENV-4: a bad name in session/open's env is refused too", async () => {
  const { s, marker } = setup();
  const r = await s.call("session/open", { spec: fakeAgentSpec(marker), env: { "1BAD": "x" } });
  assert.equal(r.error!.data.code, "env_refused");
  assert.equal(await s.end(), 0);
});

test("R-ENV-3: with --trust-host-env, inheritAll passes the whole environment", async () => {
  const { s, marker } = setup(["--trust-host-env"]);
  const sid = await s.open(spec(marker, { policy: "inheritAll" }));
  const env = await agentEnv(s, sid);
  assert.equal(env.SECRET_TOKEN, "do-not-leak");
  assert.equal(await s.end(), 0);
});

test("D10: the sidecar's own /proc/<pid>/environ no longer shows the host's secrets; what the policy passes on still works", async () => {
  const { s, marker } = setup();
  const sid = await s.open(spec(marker, { policy: "sanitized", inherit: ["PATH", "LC_TIME"] }));
  const environ = readFileSync(`/proc/${s.proc.pid}/environ`, "latin1");
  assert.ok(!environ.includes("do-not-leak"), "SECRET_TOKEN is not readable from /proc/<sidecar>/environ");
  assert.ok(!environ.includes("LC_TIME=C"), "the block was cleared, not just one variable");
  assert.equal((await agentEnv(s, sid)).LC_TIME, "C", "the sidecar's environment itself is intact (moved, not lost)");
  assert.equal(await s.end(), 0);
});
