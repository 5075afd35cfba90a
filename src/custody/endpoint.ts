// The sidecar's one custody proxy (R-CUSTODY-1), started by the first open that needs it, and
// its address: the only one a sandbox with network "model" (R-SANDBOX-1) lets an agent reach.
import { createLogger, type Logger } from "../log.js";
import { CustodyProxy } from "./proxy.js";

let starting: Promise<CustodyProxy> | undefined;
let running: CustodyProxy | undefined;
/** Refusals of proxies stopped before (the count is monotonic, as a Prometheus counter must be). */
let refusedBefore = 0;

/** The proxy, started on first use; `logger` (the sidecar's) is the one its first caller gives. */
export function custodyProxy(logger: Logger = createLogger("warn")): Promise<CustodyProxy> {
  starting ??= CustodyProxy.start(logger).then(
    (p) => (running = p),
    (e: unknown) => {
      starting = undefined;
      throw e;
    },
  );
  return starting;
}

/** Where the custody proxy listens (loopback, TCP); starts it when nothing has yet. */
export async function custodyEndpoint(logger?: Logger): Promise<{ host: "127.0.0.1"; port: number }> {
  return { host: "127.0.0.1", port: (await custodyProxy(logger)).port };
}

/** Requests the proxy refused for want of a live token, since the sidecar started. */
export function custodyRefused(): number {
  return refusedBefore + (running?.refused ?? 0);
}

/** Stops the proxy (the sidecar's shutdown); a later custody open starts a new one. */
export async function stopCustody(): Promise<void> {
  const p = starting;
  refusedBefore += running?.refused ?? 0;
  starting = undefined;
  running = undefined;
  await p?.then((proxy) => proxy.close()).catch(() => undefined);
}

/** The session's token stops working (its close, or its failed open). */
export function releaseCustody(sessionId: string): void {
  running?.release(sessionId);
}
