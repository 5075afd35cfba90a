// A host connection that has ended is gone for good: a request it sent that is handled only
// after its end (queued behind a big line, a batch) attaches, opens and prompts nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { HostConnection } from "../../../src/server/connection.js";
import type { SessionService } from "../../../src/sessions/service.js";
import { Operations } from "../../../src/server/operations.js";
import { createLogger } from "../../../src/log.js";
import { BIG_LINE_BYTES } from "../../../src/transport/line-sequencer.js";

test("R-REMOTE-3: a session/attach handled after its connection ended attaches nothing and is answered peer_closed", async () => {
  const attached: string[] = [];
  const refused = () => {
    throw new Error("not called in this test");
  };
  const sessions = {
    attach: (p: { sessionId: string }) => {
      attached.push(p.sessionId);
      return { result: { sessionId: p.sessionId, lastSeq: 0, state: "ready", attached: 1 }, finish: () => {} };
    },
    detachEverywhere: () => {},
    open: refused,
    prompt: refused,
    cancel: refused,
    history: refused,
    close: refused,
    prewarm: refused,
    detach: refused,
    list: refused,
    drain: refused,
    closeAll: refused,
  } as unknown as SessionService;
  const input = new PassThrough();
  const output = new PassThrough();
  const out: string[] = [];
  output.on("data", (b: Buffer) => out.push(b.toString()));
  let ended = false;
  const conn = new HostConnection({
    input,
    output,
    logger: createLogger("error", () => {}),
    version: "test",
    maxLineBytes: 2 * BIG_LINE_BYTES,
    tenant: "",
    name: "test#1",
    sessions,
    operations: new Operations(),
    agents: { list: async () => ({ agents: [] }) },
    onEnd: () => (ended = true),
    onWriteError: () => {},
  });
  // A line big enough to be parsed off the main thread holds the attach behind it; the
  // connection ends (the socket closed) right after both were read.
  const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(BIG_LINE_BYTES) } });
  const attach = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/attach", params: { sessionId: "s-1" } });
  assert.equal(conn.gone, false);
  input.once("data", () => conn.end("closed"));
  input.write(`${big}\n${attach}\n`);
  const deadline = Date.now() + 10_000;
  while (!out.join("").includes('"id":2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.equal(conn.gone, true);
  assert.deepEqual(attached, [], "the ended connection was attached to a session");
  const answer = out
    .join("")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: number; error?: { data?: { code?: string } } })
    .find((m) => m.id === 2);
  assert.equal(answer?.error?.data?.code, "peer_closed");
  assert.equal(ended, false, "end() is the server's answer to onEnd, not a cause of it");
});
