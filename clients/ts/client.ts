// The spawned client: run `a4aa serve`, speak NDJSON JSON-RPC 2.0 to it on stdio (on the
// package's own NdjsonPeer: the sidecar's framing, limits and ordering). The calls, streams and
// routing are ClientCore's (core.ts); remote.ts is the WebSocket client. Typed stubs: generated.ts.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AgentEvent } from "../../generated/ts/types.js";
import type { RequestOptions } from "../../src/transport/json-rpc.js";
import { MAX_JSON_DEPTH } from "../../src/transport/depth.js";
import { NdjsonPeer } from "../../src/transport/ndjson-peer.js";
import { ClientCore, type CommonOptions, type PermissionHandler } from "./core.js";
import { RemoteClient, type RemoteOptions } from "./remote.js";

export type { PermissionHandler };

export interface ClientOptions extends CommonOptions {
  /**
   * The sidecar's command line. Default: the `a4aa serve` of the package this client comes
   * from (`a4aa/client`), run by this Node; `["a4aa", "serve"]` from PATH if it is missing.
   */
  command?: string[];
  /** Flags after `serve` for the default command (e.g. `["--record", dir]`); ignored with `command`. */
  serveArgs?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Receives the sidecar's log lines; default: written to this process's stderr. */
  onStderr?: (text: string) => void;
  /** Incoming lines longer than this are skipped without being held whole. Default 1 GiB. */
  maxLineBytes?: number;
  /** How long close() waits for the exit after EOF before killing the sidecar. Default 30 s. */
  closeTimeoutMs?: number;
}

/** `a4aa serve` of this package: dist/clients/ts/client.js → dist/src/cli/main.js. */
function bundledSidecar(): string[] | undefined {
  const bin = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
  return existsSync(bin) ? [process.execPath, bin, "serve"] : undefined;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One connection to a sidecar this client spawns. */
export class A4aaClient extends ClientCore {
  readonly proc: ChildProcessWithoutNullStreams;
  private readonly opts: ClientOptions;
  private readonly link: NdjsonPeer;
  private readonly exited: Promise<ExitStatus>;

  static start(opts: ClientOptions = {}): A4aaClient {
    return new A4aaClient(opts);
  }

  /**
   * Connects to a sidecar's WebSocket listener (`a4aa serve --listen ws://…`) with a token,
   * reconnecting when the connection is lost (R-REMOTE-10): see RemoteClient.
   */
  static connect(url: string, opts: RemoteOptions = {}): Promise<RemoteClient> {
    return RemoteClient.connect(url, opts);
  }

  constructor(opts: ClientOptions = {}) {
    super(opts);
    this.opts = opts;
    const [program, ...args] = opts.command ?? [...(bundledSidecar() ?? ["a4aa", "serve"]), ...(opts.serveArgs ?? [])];
    this.proc = spawn(program, args, { env: opts.env, cwd: opts.cwd, stdio: ["pipe", "pipe", "pipe"] });
    this.exited = new Promise((resolve) => this.proc.once("close", (code, signal) => resolve({ code, signal })));
    this.proc.once("error", (e) => this.end(`cannot run ${program}: ${e.message}`));
    this.proc.stderr.setEncoding("utf8");
    this.proc.stderr.on("data", (d: string) => (opts.onStderr ? opts.onStderr(d) : process.stderr.write(d)));
    this.link = new NdjsonPeer({
      input: this.proc.stdout,
      output: this.proc.stdin,
      maxLineBytes: opts.maxLineBytes ?? 1 << 30,
      // The sidecar refuses input nested deeper than MAX_JSON_DEPTH; what it sends wraps that
      // in a few levels of its own. Nothing here walks a message recursively.
      maxDepth: 2 * MAX_JSON_DEPTH,
      checkUtf8: true,
      // One write per message: close() may end stdin right after a call.
      batchWrites: false,
      ...this.peerHandlers(),
      onLine: opts.onLine,
      onMessage: opts.onMessage,
      onBadLine: (bad) =>
        process.stderr.write(
          bad.kind === "frame_too_large" ? `a4aa client: skipped an incoming line over ${opts.maxLineBytes ?? 1 << 30} bytes\n` : `a4aa client: ignored a line that is not JSON (${bad.detail})\n`,
        ),
      onEnd: () => this.end("the sidecar closed its stdout"),
      onWriteError: (e) => this.end(`write failed: ${e.message}`),
    });
  }

  protected transmit(method: string, params: unknown, opts: RequestOptions): Promise<unknown> {
    return this.link.request(method, params, opts);
  }

  protected closeLink(error: Error): void {
    this.link.close(error);
  }

  /** Writes one line as it is (no newline): for tests that speak to the sidecar by hand. */
  writeLine(line: string): void {
    this.link.writeLine(line);
  }

  /**
   * Closes the sidecar's stdin (EOF): it closes every session and exits. Resolves with its exit
   * status (killing it after closeTimeoutMs). Calls still pending fail with peer_closed.
   */
  async close(): Promise<ExitStatus> {
    this.proc.stdin.end();
    const timeout = this.opts.closeTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.proc.kill("SIGKILL");
        resolve();
      }, timeout);
      timer.unref();
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    const status = await this.exited;
    this.end("the client closed the connection");
    return status;
  }
}

export type { AgentEvent };
