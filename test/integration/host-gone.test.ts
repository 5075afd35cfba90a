// A host that is gone ends the sidecar with everything under it (R-SUP-4's bound): real
// hosts on the three clients and `a4aa run`, each with the sidecar's stderr piped, killed
// in the middle of a streaming turn. Before the fix the sidecar was reparented to init and
// spun forever, writing "uncaughtException: Error: write EPIPE" to a stderr nobody read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { killAll, liveProcesses, newMarker, parentPid, processesMentioning, processesWithMarker, waitGone } from "../helpers/procs.js";
import { scratchDir } from "../helpers/tmp.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SIDECAR = path.join(ROOT, "dist/src/cli/main.js");
const AGENT = path.join(ROOT, "dist/src/examples/example-agent.js");
const HOSTS = path.join(ROOT, "test/fixtures/hosts");
/** R-SUP-4: nothing outlives the sidecar's end by more than 5 s; here, the host's. */
const BOUND_MS = 5000;

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").replace(/\0/g, " ").trim();
  } catch {
    return "(gone)";
  }
}

/** Whether a program is on PATH (a missing one fails the test: CI installs every client's toolchain). */
async function which(program: string): Promise<boolean> {
  return new Promise((resolve) => execFile("sh", ["-c", `command -v ${program}`], (e) => resolve(!e)));
}

/** Starts `host` (its stdout piped), waits until it reports "streaming" (or `ready` matches). */
async function started(host: ChildProcess, ready: RegExp): Promise<void> {
  let out = "";
  let err = "";
  host.stderr?.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the host did not start streaming within 60 s; its stderr:\n${err}`)), 60_000);
    host.stdout!.on("data", (d: Buffer) => {
      out = (out + d.toString()).slice(-4000);
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    host.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the host exited (${signal ?? code}) before streaming; its stderr:\n${err}`));
    });
  });
}

/**
 * Starts a host, kills it with `signal` mid-turn, and checks that within 5 s no process of
 * the marker is left: the sidecar, its agent, and the sidecar's guard.
 */
async function killHostMidTurn(host: ChildProcess, marker: string, signal: NodeJS.Signals, ready = /streaming/): Promise<void> {
  const guards: number[] = [];
  try {
    await started(host, ready);
    const marked = processesWithMarker(marker);
    const sidecars = marked.filter((p) => / serve\b/.test(cmdline(p)));
    assert.equal(sidecars.length, 1, `one sidecar expected among ${marked.map((p) => `${p}: ${cmdline(p)}`).join("; ")}`);
    assert.ok(
      marked.some((p) => /example-agent\.js|fake-agent\.js/.test(cmdline(p))),
      "the agent runs",
    );
    guards.push(...processesMentioning("guard-main.js").filter((p) => parentPid(p) === sidecars[0]));
    assert.equal(guards.length, 1, "the sidecar's guard runs");
    const exited = new Promise((r) => host.once("exit", r));
    host.kill(signal);
    await exited;
    const left = await waitGone(() => [...processesWithMarker(marker), ...liveProcesses((p) => guards.includes(p))], BOUND_MS);
    assert.deepEqual(
      left.map((p) => `${p}: ${cmdline(p)}`),
      [],
      `processes outlived the host by over ${BOUND_MS} ms`,
    );
  } finally {
    host.kill("SIGKILL");
    killAll([...processesWithMarker(marker), ...guards]);
  }
}

const spawnHost = (program: string, args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawn(program, args, { stdio: ["ignore", "pipe", "pipe"], env });

test("R-SUP-4: a killed TypeScript host (clients/ts, sidecar stderr piped): no sidecar, agent or guard is left after 5 s", async () => {
  const marker = newMarker();
  await killHostMidTurn(spawnHost(process.execPath, [path.join(ROOT, "dist/test/fixtures/hosts/ts-host.js"), SIDECAR, AGENT, marker]), marker, "SIGKILL");
});

test("R-SUP-4: a killed host whose agent ignores cancel, stdin EOF and SIGTERM: the sidecar ends it within the deadline, nothing is left after 5 s", async () => {
  // Closing would wait out the cancel grace (10 s) and the stop ladder: once a write to the
  // gone host failed, the sidecar gives it HOST_GONE_DEADLINE_MS, then exits (its exit hook
  // SIGKILLs the agent's group).
  const marker = newMarker();
  const fake = path.join(ROOT, "dist/test/fixtures/acp/fake-agent.js");
  await killHostMidTurn(spawnHost(process.execPath, [path.join(ROOT, "dist/test/fixtures/hosts/ts-host.js"), SIDECAR, fake, marker, "ignore-cancel", "--stubborn"]), marker, "SIGKILL");
});

test("R-SUP-4: a killed Python host (clients/python, sidecar stderr piped): no sidecar, agent or guard is left after 5 s", async () => {
  assert.ok(await which("python3"), "python3 is not on PATH: this test needs it (the Python client's host)");
  const marker = newMarker();
  const env = { ...process.env, A4AA_NODE: process.execPath };
  await killHostMidTurn(spawnHost("python3", [path.join(HOSTS, "py-host.py"), SIDECAR, AGENT, marker], env), marker, "SIGKILL");
});

test("R-SUP-4: a killed Go host (clients/go, sidecar stderr piped): no sidecar, agent or guard is left after 5 s", async () => {
  assert.ok(await which("go"), "go is not on PATH: this test needs it to build the Go client's host (apt-get install golang-go)");
  const bin = path.join(scratchDir("a4aa-go-host"), "go-host");
  await new Promise<void>((resolve, reject) =>
    execFile("go", ["build", "-o", bin, "."], { cwd: path.join(HOSTS, "go-host"), env: { ...process.env, GOFLAGS: "-mod=mod" }, timeout: 300_000 }, (e, _o, err) =>
      e ? reject(new Error(`go build of the Go host failed: ${err || e.message}`)) : resolve(),
    ),
  );
  const marker = newMarker();
  await killHostMidTurn(spawnHost(bin, [process.execPath, SIDECAR, AGENT, marker]), marker, "SIGKILL");
});

for (const signal of ["SIGTERM", "SIGKILL"] as const) {
  test(`R-SUP-4: ${signal} to \`a4aa run\` mid-turn (stderr piped): no sidecar, agent or guard is left after 5 s`, async () => {
    const marker = newMarker();
    const spec = {
      id: "example",
      lane: "acp",
      command: { program: process.execPath, args: [AGENT, "--delay-ms", "1"], env: { policy: "sanitized", inherit: ["PATH", "HOME"], set: { A4AA_TEST_MARKER: marker } } },
    };
    const run = spawnHost(process.execPath, [SIDECAR, "run", "--spec", JSON.stringify(spec), "/slow 100000"], { ...process.env, A4AA_TEST_MARKER: marker });
    await killHostMidTurn(run, marker, signal, /chunk 2 /);
  });
}
