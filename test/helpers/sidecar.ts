// The test sidecar of the integration tests: the one test host (host.ts, on clients/ts)
// with this suite's defaults, and the agent specs the tests use.
import { after } from "node:test";
import { fileURLToPath } from "node:url";
import type { AgentSpec } from "../../generated/ts/types.js";
import { CLI, TestHost, markedNodeCommand, type HostOptions, type PermissionAnswer, type RpcMessage } from "./host.js";
import { killAll, newMarker, processesWithMarker, waitGone } from "./procs.js";

export { CLI, newMarker, processesWithMarker, type PermissionAnswer, type RpcMessage };

export const FAKE_ACP_AGENT = fileURLToPath(new URL("../fixtures/acp/fake-agent.js", import.meta.url));
export const EXAMPLE_AGENT = fileURLToPath(new URL("../../src/examples/example-agent.js", import.meta.url));

export type StartOptions = HostOptions;

export class TestSidecar extends TestHost {
  constructor(opts: StartOptions = {}) {
    // The sidecar's own environment holds a secret no agent may see.
    super({ ...opts, env: opts.env ?? { ...process.env, SECRET_TOKEN: "do-not-leak" } });
  }
}

export function fakeAgentSpec(marker: string, flags: string[] = [], extra: Partial<AgentSpec> = {}): AgentSpec {
  return { id: "fake", lane: "acp", command: markedNodeCommand(FAKE_ACP_AGENT, flags, marker), ...extra } as AgentSpec;
}

export function exampleAgentSpec(marker: string, args: string[] = ["--delay-ms", "1"]): AgentSpec {
  return { id: "example", lane: "acp", command: markedNodeCommand(EXAMPLE_AGENT, args, marker) };
}

/** Waits until no process carries `marker`; returns the survivors after `timeoutMs`. */
export function waitNoProcesses(marker: string, timeoutMs = 5000): Promise<number[]> {
  return waitGone(() => processesWithMarker(marker), timeoutMs);
}

/** Kills whatever carries `marker` (cleanup after a failed test). */
export function killMarked(marker: string): void {
  killAll(processesWithMarker(marker));
}

/**
 * A test file's sidecars: `setup(args?)` starts one with a fresh marker for its agents; after
 * the file's tests, every sidecar it started is killed and whatever carries a marker too.
 */
export function sidecarSetup(): (opts?: string[] | StartOptions) => { s: TestSidecar; marker: string } {
  const started: TestSidecar[] = [];
  const markers: string[] = [];
  after(() => {
    for (const s of started) s.kill();
    for (const m of markers) killMarked(m);
  });
  return (opts = []) => {
    const s = new TestSidecar(Array.isArray(opts) ? { args: opts } : opts);
    started.push(s);
    const marker = newMarker();
    markers.push(marker);
    return { s, marker };
  };
}
