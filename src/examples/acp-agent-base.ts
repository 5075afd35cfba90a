// The agent side of an ACP stdio connection, on a4aa's own transport: for the bundled
// example agent and the test fixtures. Not part of the sidecar's runtime path.
import type { JsonRpcPeer, RpcErrorObject } from "../transport/json-rpc.js";
import { NdjsonPeer } from "../transport/ndjson-peer.js";

export class AcpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type Handler = (params: Record<string, unknown>) => unknown;

export interface AgentConnection {
  peer: JsonRpcPeer;
  /** Sends a session/update notification. */
  update(sessionId: string, update: Record<string, unknown>): void;
  /** Writes a raw line to stdout (for misbehaving fixtures). */
  writeRaw(line: string): void;
}

/** Serves ACP on stdin/stdout with the given request and notification handlers. */
export function serveAgent(
  requests: Record<string, Handler>,
  notifications: Record<string, (params: Record<string, unknown>) => void>,
  opts: { onEnd?: () => void } = {},
): AgentConnection {
  const link: NdjsonPeer = new NdjsonPeer({
    input: process.stdin,
    output: process.stdout,
    maxLineBytes: 256 * 1024 * 1024,
    checkUtf8: true,
    // One write per message: a fixture may exit right after one.
    batchWrites: false,
    requireVersion: false,
    writeVersion: true,
    allowBatch: false,
    onRequest: (method, params) => {
      const h = requests[method];
      if (!h) throw new AcpError(-32601, `Method not found: ${method}`);
      return h((params ?? {}) as Record<string, unknown>);
    },
    onNotification: (method, params) => notifications[method]?.((params ?? {}) as Record<string, unknown>),
    toRpcError: (e): RpcErrorObject =>
      e instanceof AcpError
        ? { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) }
        : { code: -32603, message: (e as Error)?.message ?? String(e) },
    invalidRequest: (reason) => ({ code: -32600, message: reason }),
    onBadLine: (bad) => process.stderr.write(`agent: ignored a line (${bad.detail})\n`),
    onEnd: () => {
      link.close(new Error("stdin closed"));
      opts.onEnd?.();
    },
    onWriteError: () => undefined,
  });
  const peer = link.rpc;
  const writeRaw = (line: string) => link.writeLine(line);
  return {
    peer,
    update: (sessionId, update) => peer.notify("session/update", { sessionId, update }),
    writeRaw,
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
