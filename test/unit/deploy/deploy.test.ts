// Issue 26 item 3: deploy/ (Dockerfile, Kubernetes manifest, systemd unit) agrees with the
// real `a4aa serve --help` and with itself: every flag it passes exists; one port everywhere
// (listen URL, EXPOSE, containerPort, probes, Service, health check); the probe paths; the
// token file where the secret is mounted; stop timeouts longer than --drain-timeout; no root;
// SIGTERM to a4aa alone. The checker is also run on broken copies, which it must catch.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { CLI } from "../../helpers/sidecar.js";

const DEPLOY = fileURLToPath(new URL("../../../../deploy/", import.meta.url));
const read = (f: string) => readFileSync(path.join(DEPLOY, f), "utf8");
const HELP = execFileSync(process.execPath, [CLI, "serve", "--help"], { encoding: "utf8" });

interface Files {
  dockerfile: string;
  kubernetes: string;
  systemd: string;
}

/** A Dockerfile's instructions (continuations joined, comments dropped). */
function dockerInstructions(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(" ") };
    });
}

/** `[Section]` → key → values (a key may repeat). */
function unitFile(text: string): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  let section = out.set("", new Map()).get("")!;
  for (const raw of text.split("\n")) {
    const l = raw.trim();
    if (!l || l.startsWith("#") || l.startsWith(";")) continue;
    const s = /^\[(.+)\]$/.exec(l);
    if (s) {
      section = new Map();
      out.set(s[1]!, section);
      continue;
    }
    const eq = l.indexOf("=");
    const k = l.slice(0, eq).trim();
    section.set(k, [...(section.get(k) ?? []), l.slice(eq + 1).trim()]);
  }
  return out;
}

/** `--flag value` pairs of a serve command line. */
function serveFlags(args: string[]): Map<string, string | true> {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("--")) continue;
    const v = args[i + 1];
    if (v !== undefined && !v.startsWith("--")) {
      flags.set(a, v);
      i++;
    } else flags.set(a, true);
  }
  return flags;
}

const portOf = (url: string) => Number(new URL(url).port);

/** Everything wrong with the three files, in words; empty when they agree. */
function problems(f: Files, help: string): string[] {
  const out: string[] = [];
  const known = new Set(help.match(/--[a-z][a-z-]*/g));
  const checkServe = (where: string, args: string[]) => {
    const flags = serveFlags(args);
    for (const k of flags.keys()) if (!known.has(k)) out.push(`${where}: ${k} is not an a4aa serve flag`);
    const listen = flags.get("--listen");
    const drain = Number(flags.get("--drain-timeout") ?? /--drain-timeout MS[\s\S]*?default (\d+)/.exec(help)?.[1]);
    if (typeof listen !== "string") out.push(`${where}: no --listen`);
    if (typeof flags.get("--auth-token-file") !== "string") out.push(`${where}: no --auth-token-file (needed to listen beyond loopback)`);
    return { port: typeof listen === "string" ? portOf(listen) : NaN, token: String(flags.get("--auth-token-file")), drainS: drain / 1000 };
  };

  // Dockerfile
  const ins = dockerInstructions(f.dockerfile);
  const json = (op: string) => {
    const i = ins.filter((x) => x.op === op).at(-1);
    return i ? (JSON.parse(i.args) as string[]) : [];
  };
  const entry = json("ENTRYPOINT");
  const serveAt = entry.indexOf("serve");
  if (entry[serveAt - 1] !== "a4aa" || serveAt < 0) out.push(`Dockerfile: ENTRYPOINT does not run a4aa serve: ${JSON.stringify(entry)}`);
  const docker = checkServe("Dockerfile CMD", [...entry.slice(serveAt + 1), ...json("CMD")]);
  const exposed = ins.filter((x) => x.op === "EXPOSE").map((x) => Number(x.args));
  if (!exposed.includes(docker.port)) out.push(`Dockerfile: EXPOSE ${exposed.join(",")} is not the --listen port ${docker.port}`);
  const user = ins.filter((x) => x.op === "USER").at(-1)?.args;
  if (!user || user === "root" || user === "0") out.push("Dockerfile: runs as root (no USER, or USER root)");
  if (ins.find((x) => x.op === "STOPSIGNAL")?.args !== "SIGTERM") out.push("Dockerfile: STOPSIGNAL is not SIGTERM");
  const health = ins.find((x) => x.op === "HEALTHCHECK")?.args ?? "";
  if (!health.includes(`127.0.0.1:${docker.port}/healthz`)) out.push(`Dockerfile: the HEALTHCHECK does not ask /healthz on port ${docker.port}`);

  // Kubernetes
  const docs = parseAllDocuments(f.kubernetes).map((d) => d.toJS() as any);
  const deployment = docs.find((d) => d?.kind === "Deployment");
  const service = docs.find((d) => d?.kind === "Service");
  if (!deployment) out.push("kubernetes.yaml: no Deployment");
  if (!service) out.push("kubernetes.yaml: no Service");
  const pod = deployment?.spec?.template?.spec ?? {};
  const c = pod.containers?.[0] ?? {};
  const k8s = checkServe("kubernetes.yaml args", c.args ?? json("CMD"));
  const ports = [
    ["containerPort", c.ports?.[0]?.containerPort],
    ["livenessProbe port", c.livenessProbe?.httpGet?.port],
    ["readinessProbe port", c.readinessProbe?.httpGet?.port],
    ["Service targetPort", service?.spec?.ports?.[0]?.targetPort],
  ] as const;
  for (const [what, p] of ports) if (p !== k8s.port) out.push(`kubernetes.yaml: ${what} ${p} is not the --listen port ${k8s.port}`);
  if (c.livenessProbe?.httpGet?.path !== "/healthz") out.push("kubernetes.yaml: the liveness probe does not ask /healthz");
  if (c.readinessProbe?.httpGet?.path !== "/readyz") out.push("kubernetes.yaml: the readiness probe does not ask /readyz");
  if (!(pod.terminationGracePeriodSeconds > k8s.drainS)) out.push(`kubernetes.yaml: terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} is not longer than --drain-timeout (${k8s.drainS} s)`);
  if (pod.securityContext?.runAsNonRoot !== true || pod.securityContext?.runAsUser === 0) out.push("kubernetes.yaml: the pod may run as root");
  const mount = (c.volumeMounts ?? []).find((m: any) => k8s.token.startsWith(`${m.mountPath}/`));
  const volume = mount && (pod.volumes ?? []).find((v: any) => v.name === mount.name);
  const file = mount ? k8s.token.slice(mount.mountPath.length + 1) : "";
  if (!volume?.secret || !(volume.secret.items ?? [{ path: file }]).some((i: any) => i.path === file)) out.push(`kubernetes.yaml: --auth-token-file ${k8s.token} is not a file of a mounted Secret`);

  // systemd
  const unit = unitFile(f.systemd).get("Service") ?? new Map<string, string[]>();
  const one = (k: string) => unit.get(k)?.at(-1);
  const exec = (one("ExecStart") ?? "").split(/\s+/);
  const at = exec.indexOf("serve");
  if (at < 1 || exec[at - 1] !== "a4aa") out.push(`a4aa.service: ExecStart does not run a4aa serve`);
  const sd = checkServe("a4aa.service ExecStart", exec.slice(at + 1));
  const cred = (unit.get("LoadCredential") ?? []).map((l) => l.split(":")[0]);
  if (!sd.token.startsWith("%d/") || !cred.includes(sd.token.slice(3))) out.push(`a4aa.service: --auth-token-file ${sd.token} is not a LoadCredential= credential (%d/NAME)`);
  const stopS = Number((one("TimeoutStopSec") ?? "").replace(/s$/, ""));
  if (!(stopS > sd.drainS)) out.push(`a4aa.service: TimeoutStopSec ${one("TimeoutStopSec")} is not longer than --drain-timeout (${sd.drainS} s)`);
  if (one("KillMode") !== "mixed") out.push("a4aa.service: KillMode is not mixed (the default signals every agent at once, before the drain)");
  if (one("KillSignal") && one("KillSignal") !== "SIGTERM") out.push("a4aa.service: KillSignal is not SIGTERM");
  if (!one("User") && one("DynamicUser") !== "yes") out.push("a4aa.service: runs as root (no User= or DynamicUser=)");
  if (one("User") === "root") out.push("a4aa.service: User=root");

  // One port and one drain timeout across the three.
  if (new Set([docker.port, k8s.port, sd.port]).size !== 1) out.push(`the three listen on different ports: ${docker.port}, ${k8s.port}, ${sd.port}`);
  return out;
}

const files = (): Files => ({ dockerfile: read("Dockerfile"), kubernetes: read("kubernetes.yaml"), systemd: read("a4aa.service") });

test("issue 26: deploy/'s Dockerfile, Kubernetes manifest and systemd unit agree with `a4aa serve --help` and with each other", () => {
  assert.deepEqual(problems(files(), HELP), []);
});

test("R-REMOTE-9: the checker catches a renamed flag, a port out of step, a grace period shorter than the drain, root, and a KillMode that skips the drain", () => {
  const f = files();
  const broken: [string, Files, RegExp][] = [
    ["a flag serve does not have", { ...f, kubernetes: f.kubernetes.replace('"--drain-timeout"', '"--drain-timeout-ms"') }, /--drain-timeout-ms is not an a4aa serve flag/],
    ["EXPOSE out of step", { ...f, dockerfile: f.dockerfile.replace("EXPOSE 7700", "EXPOSE 8080") }, /EXPOSE 8080 is not the --listen port 7700/],
    ["a readiness probe on another port", { ...f, kubernetes: f.kubernetes.replace("path: /readyz, port: 7700", "path: /readyz, port: 7701") }, /readinessProbe port 7701/],
    ["liveness on /readyz", { ...f, kubernetes: f.kubernetes.replace("path: /healthz", "path: /readyz") }, /liveness probe does not ask \/healthz/],
    ["a grace period shorter than the drain", { ...f, kubernetes: f.kubernetes.replace("terminationGracePeriodSeconds: 45", "terminationGracePeriodSeconds: 20") }, /terminationGracePeriodSeconds 20 is not longer/],
    ["a token file outside the secret", { ...f, kubernetes: f.kubernetes.replace('"/run/secrets/a4aa/tokens"', '"/etc/a4aa/tokens"') }, /is not a file of a mounted Secret/],
    ["root in the image", { ...f, dockerfile: f.dockerfile.replace("USER 10001", "USER root") }, /Dockerfile: runs as root/],
    ["KillMode control-group", { ...f, systemd: f.systemd.replace("KillMode=mixed", "KillMode=control-group") }, /KillMode is not mixed/],
    ["TimeoutStopSec under the drain", { ...f, systemd: f.systemd.replace("TimeoutStopSec=45", "TimeoutStopSec=10") }, /TimeoutStopSec 10 is not longer/],
    ["systemd on another port", { ...f, systemd: f.systemd.replace("ws://0.0.0.0:7700", "ws://0.0.0.0:7800") }, /different ports: 7700, 7700, 7800/],
  ];
  for (const [what, b, expected] of broken) {
    const found = problems(b, HELP);
    assert.ok(found.some((p) => expected.test(p)), `${what}: expected ${expected}, got ${JSON.stringify(found)}`);
  }
});
