// Shared by the TS client tests: the built sidecar, the example agent, a client per test.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { A4aaClient, A4aaError, type AcpAgentSpec, type ClientOptions, type StreamItem } from "../../clients/ts/index.js";

export const here = path.dirname(fileURLToPath(import.meta.url));
export const CLI = path.resolve(here, "../../src/cli/main.js");
export const EXAMPLE_AGENT = path.resolve(here, "../../src/examples/example-agent.js");
export const ROOT = path.resolve(here, "../../..");
export const T = { timeoutMs: 60_000 };

export function exampleSpec(edit: (s: AcpAgentSpec) => void = () => undefined): AcpAgentSpec {
  const spec: AcpAgentSpec = {
    id: "example",
    lane: "acp",
    command: { program: process.execPath, args: [EXAMPLE_AGENT], env: { policy: "sanitized", inherit: ["PATH", "HOME"] } },
  };
  edit(spec);
  return spec;
}

// Each test's clients are closed (or killed) when it ends.
export async function withClient(opts: ClientOptions, body: (c: A4aaClient) => Promise<void>): Promise<void> {
  let stderr = "";
  const c = A4aaClient.start({ command: [process.execPath, CLI, "serve"], onStderr: (t) => (stderr += t), closeTimeoutMs: 20_000, ...opts });
  try {
    await body(c);
  } catch (e) {
    process.stderr.write(`sidecar stderr:\n${stderr.slice(-4000)}\n`);
    throw e;
  } finally {
    await c.close();
  }
}

export async function openExample(c: A4aaClient): Promise<string> {
  const open = await c.sessionOpen({ spec: exampleSpec(), cwd: ROOT }, T);
  return open.sessionId;
}

export async function all(stream: AsyncIterable<StreamItem>): Promise<StreamItem[]> {
  const out: StreamItem[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

export function shape(events: StreamItem[]): string {
  return events.map((e) => e.type).filter((t, i, a) => i === 0 || a[i - 1] !== t).join(" ");
}

export async function rejection(p: Promise<unknown>): Promise<A4aaError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof A4aaError, `not an A4aaError: ${String(e)}`);
    return e;
  }
  assert.fail("the call did not fail");
}

