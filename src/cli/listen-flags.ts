// `a4aa serve` flags of §15: --listen (repeatable), --stdio, --auth-token-file,
// --allow-origin, --tls-cert/--tls-key, --detach-ttl, --max-outbound, --ping-interval,
// --pong-timeout, --metrics-public, --drain-timeout (R-REMOTE-8, -9). A configuration that would expose sessions without authentication is
// refused (R-REMOTE-2): exit 2, saying why.
import { UsageError, flagValue, type FlagSpec, type ParsedArgs } from "./args.js";
import type { Logger } from "../log.js";
import type { Listener } from "../server/server.js";
import { isLoopback, parseListenAddress, type ListenAddress } from "../listen/address.js";
import { loadTokenFile, type TokenFile } from "../listen/auth.js";
import { DEFAULT_MAX_OUTBOUND_BYTES } from "../listen/outbound.js";
import { UnixListener } from "../listen/unix-listener.js";
import type { Facts } from "../telemetry/facts.js";
import { DEFAULT_MAX_LINE_BYTES } from "../transport/line-reader.js";
import { accessSync, constants } from "node:fs";

export const remoteFlagSpecs: Record<string, FlagSpec> = {
  listen: { value: true, multiple: true },
  stdio: {},
  "auth-token-file": { value: true },
  "allow-origin": { value: true, multiple: true },
  "tls-cert": { value: true },
  "tls-key": { value: true },
  "detach-ttl": { value: true },
  "max-outbound": { value: true },
  "ping-interval": { value: true },
  "pong-timeout": { value: true },
  "metrics-public": {},
  "drain-timeout": { value: true },
};

export interface RemoteSetup {
  /** Serve stdin/stdout too (always without --listen). */
  stdio: boolean;
  listeners: Listener[];
  detachTtlMs?: number;
  /** `--drain-timeout` (R-REMOTE-9). */
  drainTimeoutMs?: number;
  /** Says on stderr where the listeners listen (the port actually bound for port 0). */
  announce(): void;
}

const HELP = "a4aa serve --help";

export async function remoteListeners(
  flags: ParsedArgs["flags"],
  logger: Logger,
  ms: (name: string) => number | undefined,
  facts: Facts,
): Promise<RemoteSetup> {
  const values = (name: string): string[] => {
    const v = flags[name];
    return v === undefined || v === true ? [] : Array.isArray(v) ? v : [v];
  };
  const addrs: ListenAddress[] = values("listen").map((t) => {
    try {
      return parseListenAddress(t);
    } catch (e) {
      throw new UsageError((e as Error).message, HELP);
    }
  });
  const detachTtlMs = ms("detach-ttl");
  const only = (name: string) => {
    if (!addrs.length && flags[name] !== undefined) throw new UsageError(`--${name} only applies with --listen`, HELP);
  };
  ["stdio", "auth-token-file", "allow-origin", "tls-cert", "tls-key", "max-outbound", "ping-interval", "pong-timeout", "metrics-public", "drain-timeout"].forEach(only);
  if (!addrs.length) return { stdio: true, listeners: [], detachTtlMs, announce: () => undefined };

  const tokenFile = flagValue(flags, "auth-token-file");
  let tokens: TokenFile | undefined;
  if (tokenFile !== undefined) {
    try {
      tokens = loadTokenFile(tokenFile);
    } catch (e) {
      throw new UsageError((e as Error).message, HELP);
    }
  }
  for (const a of addrs) {
    if (a.kind !== "unix" && !isLoopback(a.host) && !tokens) {
      throw new UsageError(
        `--listen ${a.text} is reachable from other machines, and without authentication anyone there could run agents as you: add --auth-token-file FILE (lines NAME:TOKEN), or listen on 127.0.0.1 or a unix: socket`,
        HELP,
      );
    }
  }
  const certFile = flagValue(flags, "tls-cert");
  const keyFile = flagValue(flags, "tls-key");
  const wantsTls = addrs.some((a) => a.kind === "wss");
  if (wantsTls && (!certFile || !keyFile)) throw new UsageError("a wss:// listener needs --tls-cert FILE and --tls-key FILE", HELP);
  if (!wantsTls && (certFile || keyFile)) throw new UsageError("--tls-cert and --tls-key only apply to a wss:// listener", HELP);
  for (const f of [certFile, keyFile]) {
    if (f === undefined) continue;
    try {
      accessSync(f, constants.R_OK);
    } catch {
      throw new UsageError(`cannot read ${JSON.stringify(f)} (--tls-cert / --tls-key)`, HELP);
    }
  }
  const maxOutboundBytes = positiveInt(flagValue(flags, "max-outbound"), "max-outbound") ?? DEFAULT_MAX_OUTBOUND_BYTES;
  const pingIntervalMs = ms("ping-interval");
  const pongTimeoutMs = ms("pong-timeout");
  const allowOrigins = values("allow-origin");
  const drainTimeoutMs = ms("drain-timeout");
  // Loaded only for a listener (ws, prom-client): a stdio sidecar starts ~0.1 s sooner without them.
  const [{ WsListener }, { PrometheusExporter }] = await Promise.all([import("../listen/ws-listener.js"), import("../telemetry/prometheus.js")]);
  // R-REMOTE-8: one exporter for every ws/wss listener's /metrics.
  const fleet = addrs.some((a) => a.kind !== "unix")
    ? { facts, metrics: new PrometheusExporter(facts), metricsPublic: flags["metrics-public"] === true }
    : undefined;
  const listeners = addrs.map((a): Listener =>
    a.kind === "unix"
      ? new UnixListener({ path: a.path, text: a.text, logger, maxOutboundBytes })
      : new WsListener({
          address: a,
          logger,
          tokens,
          allowOrigins,
          tls: a.kind === "wss" ? { certFile: certFile!, keyFile: keyFile! } : undefined,
          maxLineBytes: DEFAULT_MAX_LINE_BYTES,
          maxOutboundBytes,
          pingIntervalMs,
          pongTimeoutMs,
          fleet,
        }),
  );
  return {
    stdio: flags.stdio === true,
    listeners,
    detachTtlMs,
    drainTimeoutMs,
    announce() {
      for (const l of listeners) {
        const where = l instanceof WsListener && l.port !== undefined ? l.address.replace(/:\d+(?=\/|$)/, `:${l.port}`) : l.address;
        process.stderr.write(`a4aa serve: listening on ${where}\n`);
      }
    },
  };
}

function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive number of bytes, not ${JSON.stringify(v)}`, HELP);
  return n;
}
