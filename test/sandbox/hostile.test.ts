// R-SANDBOX-2: a hostile agent inside {filesystem: "cwd", network: "model"} with custody,
// opened by catalog id (claude-agent-acp: its modelApi, with the hostile agent on the
// sidecar's PATH under that name), while another sandboxed session runs beside it. It tries
// to read planted secrets (a file beside its cwd, ~/.ssh, the other session's cwd, the
// sidecar's /proc/<pid>/environ and memory), to write outside its cwd, to connect to a
// loopback port the test opens, to signal the sidecar and its guard, and to find the real key
// anywhere it can see. Every attempt fails and the report says how; the one address it
// reaches is the custody proxy, which adds the real key on the way to the model mock.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { newMarker, processesWithMarker, sidecarSetup, waitNoProcesses, type TestSidecar } from "../helpers/sidecar.js";
import { SKIP, alive, forbiddenListener, guardOf, modelMock, sandboxFolders, world, REPO } from "./harness.js";

const setup = sidecarSetup();
const BOXED = { filesystem: "cwd", network: "model" } as const;

type Attempt = { ok: unknown } | { error: string };
type Report = Record<string, any>;

function report(s: TestSidecar, sid: string): Report {
  const chunks = s.events(sid).filter((e) => e.type === "messageChunk");
  return JSON.parse((chunks.at(-1) as { text: string }).text);
}

const failed = (a: Attempt | undefined, what: string): string => {
  assert.ok(a, `${what}: attempted`);
  assert.ok("error" in a, `${what} must fail, got ${JSON.stringify(a).slice(0, 200)}`);
  return a.error;
};
const succeeded = (a: Attempt | undefined, what: string): unknown => {
  assert.ok(a && "ok" in a, `${what} must work, got ${JSON.stringify(a)}`);
  return a.ok;
};

describe("R-SANDBOX-2: a hostile agent in {filesystem: cwd, network: model} with custody", { skip: SKIP }, () => {
  test("the attacks are real: the same agent with custody but no sandbox reads the planted secrets, the sidecar's command line and reaches the loopback listener", { timeout: 30_000 }, async () => {
    const w = world();
    const mock = await modelMock();
    const forbidden = await forbiddenListener();
    const PATH = [w.bin, path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":");
    const { s, marker } = setup({ env: { PATH, HOME: w.home, LANG: "C.UTF-8", SECRET_TOKEN: "do-not-leak" } });
    const a = await s.ok("session/open", {
      agent: { id: "claude-agent-acp", credentials: { ANTHROPIC_API_KEY: w.secrets.key }, upstream: mock.url },
      env: { A4AA_TEST_MARKER: marker },
      cwd: w.cwdA,
      options: { custody: "proxy" },
    });
    assert.deepEqual(a.capabilities.sandbox, { available: true, filesystem: "host", network: "host" });
    await s.ok("session/prompt", { sessionId: a.sessionId, text: JSON.stringify({ read: [w.secretFile, w.sshKey, w.otherFile, `/proc/${s.proc.pid}/cmdline`], connect: [["127.0.0.1", forbidden.port]] }) });
    const r = report(s, a.sessionId);
    assert.deepEqual([w.secretFile, w.sshKey, w.otherFile].map((p) => r.read[p]), [{ ok: w.secrets.file }, { ok: w.secrets.ssh }, { ok: w.secrets.other }]);
    assert.match(String(r.read[`/proc/${s.proc.pid}/cmdline`].ok), /serve/);
    assert.deepEqual(r.connect[`127.0.0.1:${forbidden.port}`], { ok: true });
    await s.ok("session/close", { sessionId: a.sessionId });
  });

  test("R-SANDBOX-2: it reads no secret, writes only its own folders, reaches only the proxy, cannot signal or inspect the sidecar, its guard or the other session", { timeout: 60_000 }, async () => {
    const w = world();
    const mock = await modelMock();
    const forbidden = await forbiddenListener();
    const PATH = [w.bin, path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":");
    const { s, marker } = setup({ env: { PATH, HOME: w.home, LANG: "C.UTF-8", SECRET_TOKEN: "do-not-leak" } });
    const markerB = newMarker();
    const open = (cwd: string, m: string) =>
      s.ok("session/open", {
        agent: { id: "claude-agent-acp", credentials: { ANTHROPIC_API_KEY: w.secrets.key }, upstream: mock.url },
        env: { A4AA_TEST_MARKER: m },
        cwd,
        options: { custody: "proxy", sandbox: BOXED },
      });
    const b = await open(w.cwdB, markerB);
    const a = await open(w.cwdA, marker);
    assert.deepEqual(a.capabilities.sandbox, { available: true, filesystem: "cwd", network: "model" });
    assert.notEqual(a.shared, true, "a sandboxed session runs its own agent process");

    const sidecar = s.proc.pid!;
    const guard = await guardOf(sidecar);
    // B's agent, as the host sees it.
    const agentB = processesWithMarker(markerB);
    assert.ok(agentB.length >= 1, "the other session's sandbox runs");
    const targets = {
      read: [w.secretFile, w.sshKey, w.otherFile, `/proc/${sidecar}/environ`, `/proc/${sidecar}/cmdline`, `/proc/${guard}/environ`, `${w.cwdA}/own.txt`, `${w.home}/.claude.json`, "/etc/hostname"],
      list: [w.dir, w.cwdB, w.home, "/tmp", "/"],
      write: [path.join(w.dir, "escaped.txt"), path.join(w.cwdB, "escaped.txt"), path.join(REPO, "escaped.txt"), "/etc/escaped", "/escaped", `${w.cwdA}/ok.txt`, `${w.home}/ok.txt`, "/tmp/ok.txt"],
      mem: [sidecar, guard],
      signal: [sidecar, guard, ...agentB],
      connect: [
        ["127.0.0.1", forbidden.port],
        ["::1", forbidden.port],
        ["127.0.0.1", mock.port],
        ["1.1.1.1", 443],
      ],
      http: ["${ANTHROPIC_BASE_URL}/v1/messages"],
    };
    await s.ok("session/prompt", { sessionId: a.sessionId, text: JSON.stringify(targets) });
    const r = report(s, a.sessionId);

    // Reading: nothing outside its cwd but system files and the copied settings.
    for (const p of [w.secretFile, w.sshKey, w.otherFile]) assert.equal(failed(r.read[p], `reading ${p}`), "ENOENT", p);
    for (const p of [`/proc/${sidecar}/environ`, `/proc/${sidecar}/cmdline`, `/proc/${guard}/environ`]) assert.equal(failed(r.read[p], `reading ${p}`), "ENOENT", `${p}: no such process in its namespace`);
    assert.equal(succeeded(r.read[`${w.cwdA}/own.txt`], "its own cwd"), "mine");
    assert.equal(succeeded(r.read[`${w.home}/.claude.json`], "the copied settings"), '{"theme":"dark"}\n');
    succeeded(r.read["/etc/hostname"], "a system file");
    // The scratch folder holds its cwd, home and the PATH folder of its program: only those mount points show.
    assert.deepEqual(succeeded(r.list[w.dir], "listing the scratch folder"), ["a", "bin", "home"], "no secret.txt, no other cwd");
    assert.equal(failed(r.list[w.cwdB], "listing the other cwd"), "ENOENT");
    assert.deepEqual(succeeded(r.list[w.home], "its private home"), [".claude.json"], "its home holds the copied settings, no ~/.ssh");
    const top = succeeded(r.list["/"], "/") as string[];
    assert.ok(!top.some((n) => ["home", "root", "srv", "mnt", "media"].includes(n)), `/ shows no user folders: ${top}`);

    // Writing: its cwd, home and /tmp only; the host's files got nothing.
    for (const p of [path.join(w.cwdB, "escaped.txt"), path.join(REPO, "escaped.txt"), "/etc/escaped", "/escaped"]) {
      assert.match(failed(r.write[p], `writing ${p}`), /^(ENOENT|EROFS|EACCES)$/, p);
    }
    // Its /tmp is private: a path there that names a host folder lands in the private one.
    succeeded(r.write[path.join(w.dir, "escaped.txt")], "writing into its private /tmp");
    for (const p of [path.join(w.dir, "escaped.txt"), path.join(w.cwdB, "escaped.txt"), path.join(REPO, "escaped.txt"), "/etc/escaped", "/escaped"]) {
      assert.ok(!existsSync(p), `${p} does not exist on the host`);
    }
    for (const p of [`${w.cwdA}/ok.txt`, `${w.home}/ok.txt`, "/tmp/ok.txt"]) succeeded(r.write[p], `writing ${p}`);
    assert.ok(existsSync(`${w.cwdA}/ok.txt`), "its cwd is the host's");
    assert.ok(!existsSync(`${w.home}/ok.txt`), "its home is private");

    // Memory and signals: the sidecar, its guard and the other session do not exist for it.
    for (const pid of [sidecar, guard]) assert.equal(failed(r.mem[pid], `reading /proc/${pid}/mem`), "ENOENT");
    for (const pid of [sidecar, guard, ...agentB]) assert.equal(failed(r.signal[pid], `SIGKILL to ${pid}`), "ESRCH");
    assert.ok(alive(sidecar) && alive(guard) && agentB.every(alive), "the sidecar, its guard and the other agent live");
    await s.ok("ping", {});

    // Network: only the proxy; the loopback listener and the mock itself are out of reach.
    for (const [h, p] of targets.connect) assert.match(failed(r.connect[`${h}:${p}`], `connecting to ${h}:${p}`), /^(ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL|EHOSTUNREACH)$/);
    assert.equal(forbidden.connections(), 0, "the forbidden listener saw no connection");
    const [url, got] = Object.entries(r.http)[0] as [string, Attempt];
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/s\/[0-9a-f]{48}\/v1\/messages$/, "its base URL is the custody proxy's");
    assert.deepEqual(succeeded(got, "the model route"), { status: 200, body: "model-ok" });
    assert.deepEqual(mock.keys, [w.secrets.key], "the proxy added the real key on the way");

    // The real key: not in its environment, nor in any process it can see, nor anywhere in the report.
    assert.equal(r.env.ANTHROPIC_API_KEY, "a4aa-custody-placeholder");
    const seen = Object.values(r.processes as Record<string, Attempt>).map((p) => JSON.stringify(p));
    // bwrap's init, the agent, the model forwarder (socat and the shell reading its log, or
    // node) and what the agent ran to look.
    assert.ok(seen.length <= 5, `it sees only its own sandbox's processes: ${Object.keys(r.processes)}`);
    assert.ok(!seen.some((p) => p.includes(markerB) || p.includes("guard-main") || p.includes("cli/main.js")), "neither the sidecar, its guard nor the other session is visible");
    const all = JSON.stringify(r);
    for (const [what, v] of Object.entries({ ...w.secrets, sidecarEnv: "do-not-leak" })) assert.ok(!all.includes(v), `the report holds no ${what}`);

    // The other session is untouched and still answers.
    await s.ok("session/prompt", { sessionId: b.sessionId, text: JSON.stringify({ read: [`${w.cwdB}/notes.txt`] }) });
    assert.equal(succeeded(report(s, b.sessionId).read[`${w.cwdB}/notes.txt`], "B reads its own cwd"), w.secrets.other);

    for (const sid of [a.sessionId, b.sessionId]) await s.ok("session/close", { sessionId: sid });
    assert.deepEqual(await waitNoProcesses(marker), []);
    assert.deepEqual(await waitNoProcesses(markerB), []);
    assert.deepEqual(sandboxFolders(tmpdir(), sidecar), [], "the sessions' private folders are removed at close");
  });
});
