// `npm run test:fleet`: the fleet test across hosts on this machine (issue 26). It makes a
// test network — a bridge and four network namespaces: a host and three sidecars, each with
// its own address — runs test/fleet/*.test.ts inside the host's namespace (the test starts
// each sidecar inside its own), and removes every namespace and link it made, whether the
// tests pass, fail or are interrupted. Where namespaces cannot be made (not Linux, not root,
// no iproute2) it says why and exits 0; with A4AA_FLEET_REQUIRED=1 (CI as root) that is a failure.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cannotMakeNamespaces, createTopology, ownNamespaces, removeNamespaces, removeTopology, staleNamespaces } from "./netns.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const SIDECARS = ["s1", "s2", "s3"];

async function main(): Promise<number> {
  const stale = staleNamespaces();
  if (stale.length) {
    const left = removeNamespaces(stale);
    console.log(`fleet: removed ${stale.length - left.length} network namespace(s) a killed earlier run left: ${stale.join(", ")}`);
  }
  const why = cannotMakeNamespaces();
  if (why) {
    const text = `fleet test skipped: it needs to make network namespaces (Linux, root, iproute2's ip netns), and here it cannot: ${why}`;
    if (process.env.A4AA_FLEET_REQUIRED === "1") {
      console.error(`${text}\nA4AA_FLEET_REQUIRED=1: failing instead of skipping`);
      return 1;
    }
    console.log(text);
    return 0;
  }
  const topology = createTopology(["h", ...SIDECARS]);
  const members = Object.entries(topology.members).map(([n, m]) => `${n} ${m.addr} (${m.ns})`);
  console.log(`fleet: network ${topology.prefix}: bridge in ${topology.bridgeNs}; ${members.join(", ")}`);
  let code = 1;
  try {
    const passthrough = process.argv.slice(2);
    const child = spawn("ip", ["netns", "exec", topology.members.h.ns, process.execPath, path.join(ROOT, "scripts/run-tests.mjs"), "test/fleet", ...passthrough], {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, A4AA_FLEET: JSON.stringify(topology) },
    });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    code = await new Promise<number>((resolve) => child.once("exit", (c, sig) => resolve(c ?? (sig ? 128 : 1))));
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
  } finally {
    const problems = removeTopology(topology);
    const left = ownNamespaces();
    if (problems.length || left.length) {
      console.error(`fleet: could not remove every namespace: ${[...problems, ...left].join("; ")}`);
      code = code || 1;
    } else console.log(`fleet: removed the ${Object.keys(topology.members).length + 1} network namespaces and their links`);
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`fleet: ${(e as Error).stack ?? e}`);
    for (const ns of ownNamespaces()) removeNamespaces([ns]);
    process.exit(1);
  },
);
