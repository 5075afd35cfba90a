// How the custody proxy reaches an upstream: kept-alive connections (a TLS handshake per model
// request would cost more than the proxy itself), and for https the system's CA bundle besides
// Node's own list — a gateway behind a company CA verifies as it does for the agent's CLI.
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import tls from "node:tls";

/** Where Linux distributions and macOS keep the system's trusted CAs (the first that exists is read). */
const SYSTEM_BUNDLES = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"];

let plain: http.Agent | undefined;
let secure: https.Agent | undefined;

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** The system's bundle and NODE_EXTRA_CA_CERTS (an explicit `ca` list would leave it out). */
function systemCas(): string[] {
  const system = SYSTEM_BUNDLES.map(read).find((b) => b !== undefined);
  const extra = process.env.NODE_EXTRA_CA_CERTS ? read(process.env.NODE_EXTRA_CA_CERTS) : undefined;
  return [system, extra].filter((b): b is string => b !== undefined);
}

/** The request function and connection pool for an upstream URL's protocol (`http:` or `https:`). */
export function upstreamAgent(protocol: string): { request: typeof http.request; agent: http.Agent } {
  if (protocol === "https:") {
    secure ??= new https.Agent({ keepAlive: true, ca: [...tls.rootCertificates, ...systemCas()] });
    return { request: https.request, agent: secure };
  }
  plain ??= new http.Agent({ keepAlive: true });
  return { request: http.request, agent: plain };
}
