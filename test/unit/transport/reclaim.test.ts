import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

const CLIENT = new URL("../../../clients/ts/index.js", import.meta.url).href;
const PEER = new URL("../../../src/transport/ndjson-peer.js", import.meta.url).href;
const RECLAIM = new URL("../../../src/transport/reclaim.js", import.meta.url).href;

// Big frames through the client's transport (a 20 MiB line read, a message with a 20 MiB
// string written), then: could a fresh context see `gc`? Only if --expose-gc was turned on.
const script = (enable: boolean) => `
  await import(${JSON.stringify(CLIENT)});
  const { NdjsonPeer } = await import(${JSON.stringify(PEER)});
  ${enable ? `(await import(${JSON.stringify(RECLAIM)})).enableReclaim();` : ""}
  const { PassThrough } = await import("node:stream");
  const vm = await import("node:vm");
  const input = new PassThrough(), output = new PassThrough();
  let outBytes = 0;
  output.on("data", (d) => (outBytes += d.length));
  const big = "x".repeat(20 << 20);
  const got = new Promise((resolve) => {
    new NdjsonPeer({
      input, output, maxLineBytes: 1 << 30, checkUtf8: true, requireVersion: false, writeVersion: true,
      onBadLine: () => {}, onRequest: () => {}, onNotification: (_m, p) => resolve(p.text.length),
      toRpcError: () => ({ code: -32603, message: "x" }), invalidRequest: (r) => ({ code: -32600, message: r }),
    }).notify("big", { text: big });
  });
  input.end(JSON.stringify({ jsonrpc: "2.0", method: "big", params: { text: big } }) + "\\n");
  const n = await got;
  await new Promise((r) => setTimeout(r, 50));
  process.stdout.write(JSON.stringify({ n, out: outBytes > n, gc: vm.runInNewContext("typeof gc") }));
`;

function run(enable: boolean): { n: number; out: boolean; gc: string } {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script(enable)], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("the TypeScript client's transport changes no V8 flag and forces no collection, big frames included", () => {
  assert.deepEqual(run(false), { n: 20 << 20, out: true, gc: "undefined" });
});

test("the sidecar's opt-in (enableReclaim) is what turns the collections on", () => {
  assert.deepEqual(run(true), { n: 20 << 20, out: true, gc: "function" });
});
