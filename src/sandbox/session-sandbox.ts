// One sandboxed session's isolation (R-SANDBOX-1): a private folder of the sidecar (mode
// 0700, removed at close and by the guard if the sidecar dies) holding the session's home
// and temp folders and, for network "model", the socket of its model route. Every process the
// session runs — the agent, each per-turn CLI, each terminal — is wrapped in bubblewrap with
// these: they share home and /tmp, and each gets its own process and network namespace.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { isIPv4 } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SpawnWrapper, StartCommand } from "../supervise/spawn.js";
import { registerTemp, releaseTemp, tempPrefix } from "../supervise/temp-files.js";
import { bwrapArgs, insidePath, type BwrapPlan, type SandboxFilesystem, type SandboxNetwork } from "./bwrap-args.js";
import { ModelRelay, type Endpoint } from "./relay.js";
import { commandRoots, inSystem, inside, installRoot } from "./roots.js";
import { executable } from "./support.js";

const LAUNCHER = fileURLToPath(new URL("./launcher.js", import.meta.url));

export interface SandboxSetup {
  bwrap: string;
  filesystem: SandboxFilesystem;
  network: SandboxNetwork;
  /** The session's cwd. */
  cwd: string;
  /** The agent's environment (its HOME is where the private home appears). */
  env: Readonly<Record<string, string>>;
  /** Home-relative files copied into the private home (the catalog entry's sandboxHome). */
  homeFiles: readonly string[];
  /** network "model": the one address the sandbox reaches. */
  modelEndpoint?: Endpoint;
}

/** The wrappers a lane starts processes with: the host's command, and what the agent asks to run. */
export interface SandboxWrappers {
  /** The agent itself (and per-turn CLIs): the folders its command names are shown read-only. */
  agent: SpawnWrapper;
  /** Terminals: the session's view only, nothing the command names is added. */
  terminal: SpawnWrapper;
}

export class SessionSandbox implements SandboxWrappers {
  readonly agent: SpawnWrapper = { wrap: (c) => this.wrap(c, true) };
  readonly terminal: SpawnWrapper = { wrap: (c) => this.wrap(c, false) };
  private disposed = false;
  /** Forwarders started (network "model"): each process of the session gets its own. */
  private forwarders = 0;

  private constructor(
    private readonly s: SandboxSetup,
    /** The private folder (home/, tmp/, net/). */
    readonly root: string,
    private readonly home: { at: string; from: string } | undefined,
    private readonly relay: ModelRelay | undefined,
  ) {}

  static async create(s: SandboxSetup): Promise<SessionSandbox> {
    const root = mkdtempSync(tempPrefix(tmpdir(), "sandbox"));
    chmodSync(root, 0o700);
    // Removed by the guard if the sidecar dies before the session closes.
    registerTemp(root);
    try {
      const home = s.filesystem === "cwd" ? privateHome(root, s) : undefined;
      if (s.filesystem === "cwd") mkdirSync(path.join(root, "tmp"), { mode: 0o700 });
      let relay: ModelRelay | undefined;
      if (s.network === "model") {
        mkdirSync(path.join(root, "net"), { mode: 0o700 });
        relay = await ModelRelay.start(path.join(root, "net", "model.sock"), s.modelEndpoint!);
      }
      return new SessionSandbox(s, root, home, relay);
    } catch (e) {
      rmSync(root, { recursive: true, force: true });
      releaseTemp(root);
      throw e;
    }
  }

  /** The bubblewrap command running `c` in this sandbox; `named`: show the folders `c` names. */
  private wrap(c: StartCommand, named: boolean): { file: string; args: string[]; env: Record<string, string> } {
    const { filesystem, network } = this.s;
    const plan: BwrapPlan = { filesystem, network, cwd: this.s.cwd, chdir: c.cwd };
    const env = { ...c.env };
    let inner = [c.file, ...c.args];
    if (filesystem === "cwd") {
      const node = installRoot(process.execPath);
      plan.readOnly = [...(named ? commandRoots(c.file, c.args, c.env) : []), ...(network === "model" && !inSystem(node) ? [node] : [])];
      plan.home = this.home;
      plan.tmp = path.join(this.root, "tmp");
      // The private temp folder is /tmp inside, whatever TMPDIR named outside.
      if (env.TMPDIR !== undefined) env.TMPDIR = "/tmp";
    }
    if (network === "model") {
      const net = path.join(this.root, "net");
      const launcher = insidePath(plan, LAUNCHER, "launcher.mjs");
      const netAt = insidePath(plan, net, "net");
      plan.extra = [
        { from: LAUNCHER, at: launcher },
        { from: net, at: netAt, writable: true },
      ];
      const { host, port } = this.s.modelEndpoint!;
      const socket = path.posix.join(netAt, "model.sock");
      // The forwarder starts in the background (stdout away from the command's); the command
      // starts once it listens, so that its first connection finds it.
      const socat = isIPv4(host) ? socatPath() : undefined;
      const ready = path.posix.join(netAt, `ready-${++this.forwarders}`);
      let script: string;
      let forwarder: string[];
      if (socat) {
        // socat listens within a few ms (the node forwarder takes ~40 ms to start). A shell
        // beside it reads its log (drained for its whole life, so socat never blocks on it),
        // creates the ready file when it says it listens, and passes its errors to stderr.
        forwarder = [socat, `TCP-LISTEN:${port},bind=${host},reuseaddr,fork`, `UNIX-CONNECT:${socket}`, ready];
        script = SOCAT_FORWARDER;
      } else {
        forwarder = [process.execPath, "--max-old-space-size=32", launcher, host, String(port), socket, ready];
        script = `"$0" "$1" "$2" "$3" "$4" "$5" "$6" >/dev/null </dev/null & r=$6; shift 6; ${WAIT_READY}`;
      }
      inner = ["/bin/sh", "-c", script, ...forwarder, ...inner];
    }
    return { file: this.s.bwrap, args: [...bwrapArgs(plan), "--", ...inner], env };
  }

  /** Removes the private folder (the session's processes are gone). Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    // The folder goes at once (its socket file with it), so that a closed session has left nothing
    // by the time its close is answered; the relay's listener then stops.
    const closed = this.relay?.close();
    rmSync(this.root, { recursive: true, force: true });
    releaseTemp(this.root);
    await closed;
  }
}

/** Waits for the file `$r` (checked at once 200 times, a few ms, then every 5 ms for up to 5 s), then runs the command. */
const WAIT_READY = 'i=0; while [ ! -e "$r" ] && [ $i -lt 1200 ]; do [ $i -lt 200 ] || sleep 0.005; i=$((i+1)); done; exec "$@"';

/**
 * `sh -c` with argv `socat LISTEN CONNECT READY command…`: socat in the background, its log
 * read to the end (so that it never blocks writing it): "listening on" creates READY, its
 * errors (E) and fatal errors (F) go to stderr; the command runs once READY exists.
 */
export const SOCAT_FORWARDER = `r=$3; "$0" -d -d "$1" "$2" 2>&1 >/dev/null </dev/null | while read -r l; do case $l in *" listening on "*) : >"$r";; *" "[EF]" "*) echo "a4aa sandbox: model forwarder: $l" >&2;; esac; done & shift 3; ${WAIT_READY}`;

/** `A4AA_SANDBOX_FORWARDER`: `node` forces the node forwarder (launcher.ts) even where socat is installed. */
export const FORWARDER_VAR = "A4AA_SANDBOX_FORWARDER";
let socat: { path?: string } | undefined;

/** socat in a system folder (shown inside every sandbox), unless told to use node. */
function socatPath(): string | undefined {
  socat ??= { path: process.env[FORWARDER_VAR] === "node" ? undefined : ["/usr/bin/socat", "/bin/socat"].find(executable) };
  return socat.path;
}

/** The private home: made in `root`, shown at the agent's HOME, with the listed files copied in. */
function privateHome(root: string, s: SandboxSetup): { at: string; from: string } | undefined {
  const at = s.env.HOME ?? userInfo().homedir;
  // A HOME that is the root or a system folder is left as it is (read-only).
  if (!path.isAbsolute(at) || at === "/" || inSystem(at)) return undefined;
  const from = path.join(root, "home");
  mkdirSync(from, { mode: 0o700 });
  for (const rel of s.homeFiles) {
    const src = path.join(at, rel);
    if (!inside(src, at) || !existsSync(src)) continue;
    const dst = path.join(from, rel);
    mkdirSync(path.dirname(dst), { recursive: true, mode: 0o700 });
    cpSync(src, dst, { recursive: true, dereference: true });
  }
  return { at: path.resolve(at), from };
}
