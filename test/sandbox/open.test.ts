// R-SANDBOX-1 through a real sidecar: what `capabilities.sandbox` says; `sandbox_unavailable`
// before anything is spawned when the machine cannot sandbox or network "model" has no
// endpoint; network "model" with --sandbox-model-endpoint reaching that endpoint and nothing
// else; network "none"; filesystem "host"; terminals in the same sandbox; a sandboxed session
// never on a shared process.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { AgentSpec } from "../../generated/ts/types.js";
import { fakeAgentSpec, processesWithMarker, sidecarSetup, waitNoProcesses, type TestSidecar } from "../helpers/sidecar.js";
import { markedNodeCommand } from "../helpers/host.js";
import { HOSTILE, SKIP, forbiddenListener, modelMock, world } from "./harness.js";

const setup = sidecarSetup();

function hostileSpec(marker: string): AgentSpec {
  return { id: "hostile", lane: "acp", command: markedNodeCommand(HOSTILE, [], marker), clientCapabilities: { terminal: true } } as AgentSpec;
}

function report(s: TestSidecar, sid: string): Record<string, any> {
  const chunks = s.events(sid).filter((e) => e.type === "messageChunk");
  return JSON.parse((chunks.at(-1) as { text: string }).text);
}

async function attack(s: TestSidecar, sid: string, targets: Record<string, unknown>): Promise<Record<string, any>> {
  await s.ok("session/prompt", { sessionId: sid, text: JSON.stringify(targets) });
  return report(s, sid);
}

describe("sandbox_unavailable: refused before anything is spawned", () => {
  test("R-SANDBOX-1: without bubblewrap an open asking for a sandbox fails sandbox_unavailable (not retryable) and starts nothing; capabilities.sandbox says why", async () => {
    const { s, marker } = setup({ env: { ...process.env, A4AA_BWRAP: "/nonexistent/bwrap", SECRET_TOKEN: "do-not-leak" } });
    const r = await s.call("session/open", { spec: fakeAgentSpec(marker), options: { sandbox: { filesystem: "cwd", network: "none" } } });
    assert.equal(r.error?.data?.code, "sandbox_unavailable");
    assert.equal(r.error.data.retryable, false);
    assert.equal(r.error.data.stage, "open");
    assert.match(r.error.data.detail, /A4AA_BWRAP="\/nonexistent\/bwrap" is not an executable file/);
    assert.deepEqual(processesWithMarker(marker), [], "no agent was started");
    const open = await s.ok("session/open", { spec: fakeAgentSpec(marker) });
    assert.equal(open.capabilities.sandbox.available, false);
    assert.equal(open.capabilities.sandbox.filesystem, "host");
    assert.equal(open.capabilities.sandbox.network, "host");
    assert.match(open.capabilities.sandbox.detail, /nonexistent/);
    await s.ok("session/close", { sessionId: open.sessionId });
  });

  test('R-SANDBOX-1: network "model" with neither custody nor --sandbox-model-endpoint fails sandbox_unavailable, saying what would do', { skip: SKIP }, async () => {
    const { s, marker } = setup();
    const r = await s.call("session/open", { spec: fakeAgentSpec(marker), options: { sandbox: {} } });
    assert.equal(r.error?.data?.code, "sandbox_unavailable");
    assert.match(r.error.data.detail, /no model endpoint is known.*custody "proxy".*--sandbox-model-endpoint/);
    assert.deepEqual(processesWithMarker(marker), []);
  });

  test("an unsandboxed open says what this machine can give, and that nothing holds", { skip: SKIP }, async () => {
    const { s, marker } = setup();
    const open = await s.ok("session/open", { spec: fakeAgentSpec(marker) });
    assert.deepEqual(open.capabilities.sandbox, { available: true, filesystem: "host", network: "host" });
    await s.ok("session/close", { sessionId: open.sessionId });
  });
});

describe("R-SANDBOX-1: what each setting holds", { skip: SKIP }, () => {
  // socat where it is installed (CI installs it), the node forwarder otherwise or when told.
  for (const forwarder of ["socat", "node"] as const) {
  test(`network "model" with --sandbox-model-endpoint, ${forwarder} forwarding: the endpoint is reached, the rest of loopback is not; a terminal runs in the same sandbox`, { timeout: 30_000 }, async () => {
    const w = world();
    const mock = await modelMock();
    const forbidden = await forbiddenListener();
    const { s, marker } = setup({ args: ["--sandbox-model-endpoint", `127.0.0.1:${mock.port}`], env: { ...process.env, A4AA_SANDBOX_FORWARDER: forwarder } });
    const open = await s.ok("session/open", { spec: hostileSpec(marker), cwd: w.cwdA, options: { sandbox: { filesystem: "cwd", network: "model" } } });
    assert.deepEqual(open.capabilities.sandbox, { available: true, filesystem: "cwd", network: "model" });
    const r = await attack(s, open.sessionId, {
      http: [`http://127.0.0.1:${mock.port}/v1/models`],
      connect: [["127.0.0.1", forbidden.port]],
      read: [w.secretFile],
      terminal: ["sh", "-c", `cat ${w.secretFile}; cat /proc/${s.proc.pid}/environ; echo pids: $(ls /proc | grep -c '^[0-9]'); echo running: $(cat /proc/[0-9]*/cmdline | tr '\\0' ' '); echo end`],
    });
    assert.deepEqual(r.http[`http://127.0.0.1:${mock.port}/v1/models`], { ok: { status: 200, body: "model-ok" } });
    assert.equal(mock.keys.length, 1);
    assert.deepEqual(r.connect[`127.0.0.1:${forbidden.port}`], { error: "ECONNREFUSED" });
    assert.deepEqual(r.read[w.secretFile], { error: "ENOENT" });
    const out: string = r.terminal.ok.output;
    assert.ok(!out.includes(w.secrets.file), "the terminal cannot read the planted secret");
    assert.match(out, /No such file or directory[\s\S]*No such file or directory/, "neither the secret nor the sidecar's environ exists for the terminal");
    // Its bwrap, forwarder, sh, the $(…) subshell, ls, grep: a handful, never the host's.
    assert.ok(Number(/pids: (\d+)/.exec(out)?.[1]) <= 8, `the terminal sees only its own sandbox's processes: ${out}`);
    assert.match(out, /end/);
    const running = /running: (.*)/.exec(out)?.[1] ?? "";
    if (forwarder === "socat") assert.match(running, /\/socat -d -d TCP-LISTEN:\d+,bind=127\.0\.0\.1/, `socat forwards (is socat installed? apt-get install socat): ${running}`);
    else assert.match(running, /launcher\.mjs 127\.0\.0\.1 \d+/, `the node forwarder forwards: ${running}`);
    await s.ok("session/close", { sessionId: open.sessionId });
    assert.deepEqual(await waitNoProcesses(marker), []);
  });
  }

  test('network "none": no address at all, not even the endpoint; no forwarder runs', async () => {
    const w = world();
    const mock = await modelMock();
    const { s, marker } = setup(["--sandbox-model-endpoint", `127.0.0.1:${mock.port}`]);
    const open = await s.ok("session/open", { spec: hostileSpec(marker), cwd: w.cwdA, options: { sandbox: { network: "none" } } });
    assert.deepEqual(open.capabilities.sandbox, { available: true, filesystem: "cwd", network: "none" });
    const r = await attack(s, open.sessionId, { http: [`http://127.0.0.1:${mock.port}/`], connect: [["127.0.0.1", mock.port]] });
    assert.deepEqual(r.http[`http://127.0.0.1:${mock.port}/`], { error: "ECONNREFUSED" });
    assert.deepEqual(r.connect[`127.0.0.1:${mock.port}`], { error: "ECONNREFUSED" });
    assert.equal(mock.keys.length, 0);
    assert.ok(!Object.values(r.processes).some((p: any) => p.ok?.cmdline.includes("launcher")), "no forwarder in the sandbox");
    await s.ok("session/close", { sessionId: open.sessionId });
  });

  test('filesystem "host": the host\'s files as they are, yet its own process namespace and no network', async () => {
    const w = world();
    const { s, marker } = setup();
    const open = await s.ok("session/open", { spec: hostileSpec(marker), cwd: w.cwdA, options: { sandbox: { filesystem: "host", network: "none" } } });
    const r = await attack(s, open.sessionId, { read: [w.secretFile, `/proc/${s.proc.pid}/environ`], signal: [s.proc.pid!] });
    assert.deepEqual(r.read[w.secretFile], { ok: w.secrets.file });
    assert.deepEqual(r.read[`/proc/${s.proc.pid}/environ`], { error: "ENOENT" });
    assert.deepEqual(r.signal[s.proc.pid!], { error: "ESRCH" });
    await s.ok("session/close", { sessionId: open.sessionId });
  });

  test("a sandboxed session never shares its agent process: a spec with share runs one process per session", async () => {
    const w = world();
    const { s, marker } = setup();
    const spec = { ...fakeAgentSpec(marker), share: {} };
    const opens = [];
    for (let i = 0; i < 2; i++) opens.push(await s.ok("session/open", { spec, cwd: w.cwdA, options: { sandbox: { network: "none" } } }));
    for (const o of opens) assert.notEqual(o.shared, true);
    const agents = processesWithMarker(marker).filter((pid) => !/bwrap/.test(cmd(pid)));
    assert.equal(agents.length, 2, `one agent per session: ${agents.map(cmd)}`);
    for (const o of opens) await s.ok("session/close", { sessionId: o.sessionId });
  });
});

function cmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").replace(/\0/g, " ");
  } catch {
    return "";
  }
}
