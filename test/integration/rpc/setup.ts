// Shared setup of the rpc lane's fixture tests: a real `a4aa serve` per test, driving the
// fake app-server of test/fixtures/rpc; every test ends by checking that nothing is left.
import { after } from "node:test";
import assert from "node:assert/strict";
import { Host, killAll, processesWithMarker, newMarker, waitGone, type PermissionAnswer } from "../../fixtures/rpc/host.js";

const hosts: Host[] = [];
const markers: string[] = [];

/** Registers the file's cleanup (call once at the top of a test file). */
export function cleanupAfterAll(): void {
  after(() => {
    for (const h of hosts) h.kill();
    for (const m of markers) killAll(processesWithMarker(m));
  });
}

export function setup(args: string[] = ["--cancel-grace", "2000"], onPermission?: (p: any) => PermissionAnswer) {
  const h = new Host(args, onPermission);
  const marker = newMarker();
  hosts.push(h);
  markers.push(marker);
  return { h, marker };
}

/** R-SUP-1: the sidecar exits 0 on EOF and nothing the test started is left. */
export async function finish(h: Host, marker: string): Promise<void> {
  assert.equal(await h.end(), 0, `the sidecar exits 0; stderr:\n${h.stderr.slice(-2000)}`);
  assert.deepEqual(await waitGone(() => processesWithMarker(marker)), [], "no process of the test is left");
}

export const prompt = (h: Host, sessionId: string, text: string, extra: Record<string, unknown> = {}) =>
  h.call("session/prompt", { sessionId, text, ...extra });
