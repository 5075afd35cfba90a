// The hostile sandbox suite's world: a scratch folder with secrets planted where an agent
// would look (a file beside its cwd, ~/.ssh, another session's cwd), a model mock on loopback
// (the one endpoint a sandbox with network "model" may reach), a second loopback server it
// must not reach, and the sidecar's and guard's pids. Every check is made from the outside.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after } from "node:test";
import { liveProcesses } from "../helpers/procs.js";
import { scratchDir } from "../helpers/tmp.js";
import { probe } from "../../src/sandbox/support.js";

export const HOSTILE = fileURLToPath(new URL("../fixtures/sandbox/hostile-sandboxed.js", import.meta.url));
/** The repository (the fixtures' package): shown read-only inside, as the folder a command runs from. */
export const REPO = path.resolve(path.dirname(HOSTILE), "../../../..");

/**
 * Whether this machine sandboxes. Where it cannot, the suite fails with the reason (a missing
 * prerequisite is never a skip) unless A4AA_SANDBOX_OPTIONAL=1 says that is expected here.
 */
export const support = await probe(process.env);
if (!support.available && process.env.A4AA_SANDBOX_OPTIONAL !== "1") {
  throw new Error(`this machine cannot sandbox: ${support.detail} (A4AA_SANDBOX_OPTIONAL=1 skips the sandbox suite where that is expected)`);
}
export const SKIP = support.available ? false : `this machine cannot sandbox: ${support.detail}`;

const token = (what: string) => `${what}-${randomBytes(8).toString("hex")}`;

export interface World {
  dir: string;
  home: string;
  cwdA: string;
  cwdB: string;
  /** A file outside every cwd. */
  secretFile: string;
  sshKey: string;
  /** A file in the other session's cwd. */
  otherFile: string;
  /** The contents that must never show up in a report. */
  secrets: { file: string; ssh: string; other: string; key: string };
  /** A folder on PATH whose `claude-agent-acp` is the hostile agent (a catalog id with modelApi). */
  bin: string;
}

export function world(): World {
  const dir = scratchDir("a4aa-sandbox-test");
  const home = path.join(dir, "home");
  const cwdA = path.join(dir, "a");
  const cwdB = path.join(dir, "b");
  const bin = path.join(dir, "bin");
  for (const d of [home, path.join(home, ".ssh"), cwdA, cwdB, bin]) mkdirSync(d, { recursive: true });
  const secrets = { file: token("planted-secret"), ssh: token("ssh-private-key"), other: token("other-session"), key: token("sk-ant-real-key") };
  const secretFile = path.join(dir, "secret.txt");
  const sshKey = path.join(home, ".ssh", "id_ed25519");
  const otherFile = path.join(cwdB, "notes.txt");
  writeFileSync(secretFile, secrets.file);
  writeFileSync(sshKey, secrets.ssh, { mode: 0o600 });
  writeFileSync(otherFile, secrets.other);
  // A sandboxHome file of claude-agent-acp: copied into the private home.
  writeFileSync(path.join(home, ".claude.json"), '{"theme":"dark"}\n');
  writeFileSync(path.join(cwdA, "own.txt"), "mine");
  chmodSync(HOSTILE, 0o755);
  symlinkSync(HOSTILE, path.join(bin, "claude-agent-acp"));
  return { dir, home, cwdA, cwdB, secretFile, sshKey, otherFile, secrets, bin };
}

export interface ModelMock {
  port: number;
  url: string;
  /** The x-api-key of each request received. */
  keys: (string | undefined)[];
}

/** An HTTP server answering `model-ok` to everything: the model API (behind custody, or directly). */
export async function modelMock(): Promise<ModelMock> {
  const keys: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    keys.push(req.headers["x-api-key"] as string | undefined);
    req.resume();
    req.on("end", () => res.end("model-ok"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  after(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}`, keys };
}

/** A loopback listener the sandbox must not reach; counts the connections it got. */
export async function forbiddenListener(): Promise<{ port: number; connections: () => number }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  after(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as AddressInfo).port, connections: () => n };
}

/** The sidecar's guard (its child running guard-main), once it runs. */
export async function guardOf(sidecarPid: number): Promise<number> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const g = liveProcesses((pid) => {
      try {
        const ppid = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
        return ppid === sidecarPid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("guard-main");
      } catch {
        return false;
      }
    })[0];
    if (g) return g;
    if (Date.now() > deadline) assert.fail(`no guard process of sidecar ${sidecarPid}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The sandbox folders a sidecar has in the temp folder (a4aa-sandbox-o<pid>x…). */
export function sandboxFolders(tmp: string, sidecarPid: number): string[] {
  return readdirSync(tmp).filter((n) => n.startsWith(`a4aa-sandbox-o${sidecarPid}x`));
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
