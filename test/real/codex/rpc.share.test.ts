// The real `codex app-server` with `share` (§13): two sessions' threads on one process,
// prompted at once, each answered by the mock according to its own prompt.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { RpcAgentSpec } from "../../../generated/ts/types.js";
import { textOf, type Script } from "../../agents/mocks/common.js";
import { processesWithMarker } from "../../helpers/sidecar.js";
import { parentPid } from "../../helpers/procs.js";
import { finish, reply, skip, startCodex } from "../helpers/codex-rpc.js";

test("R-SHARE-1: two sessions' threads on one shared codex app-server each get their own answer", { skip, timeout: 110_000 }, async () => {
  const script: Script = (req) => {
    const body = textOf(req.body);
    if (body.includes("ALPHA-7")) return reply.slow(["Answer ", "for ", "alpha."], 150);
    if (body.includes("BRAVO-3")) return reply.slow(["Answer ", "for ", "bravo."], 150);
    return undefined;
  };
  const r = await startCodex(script);
  const spec = { ...r.spec, share: { maxSessions: 4, idleMs: 1000 } } as RpcAgentSpec;
  const t0 = Date.now();
  const a = await r.h.ok("session/open", { spec, cwd: r.run.cwd });
  const cold = Date.now() - t0;
  // The processes the sidecar started itself (codex's launcher starts the native binary).
  const agents = () => processesWithMarker(r.marker).filter((pid) => parentPid(pid) === r.h.proc.pid);
  const procs = agents();
  assert.equal(procs.length, 1);
  const t1 = Date.now();
  const b = await r.h.ok("session/open", { spec, cwd: r.run.cwd });
  const warm = Date.now() - t1;
  assert.deepEqual(agents(), procs, "the second open started another app-server");
  assert.equal(a.shared && b.shared, true);
  assert.notEqual(a.nativeSessionId, b.nativeSessionId, "two threads");
  const [ra, rb] = await Promise.all([
    r.h.ok("session/prompt", { sessionId: a.sessionId, text: "Code word ALPHA-7: answer." }),
    r.h.ok("session/prompt", { sessionId: b.sessionId, text: "Code word BRAVO-3: answer." }),
  ]);
  assert.equal(ra.text, "Answer for alpha.");
  assert.equal(rb.text, "Answer for bravo.");
  const chunks = (sid: string) => r.h.events(sid).filter((e) => e.type === "messageChunk").map((e: any) => e.text).join("");
  assert.equal(chunks(a.sessionId), "Answer for alpha.");
  assert.equal(chunks(b.sessionId), "Answer for bravo.");
  process.stderr.write(`codex app-server share: cold open ${cold} ms, warm open ${warm} ms\n`);
  await r.h.ok("session/close", { sessionId: a.sessionId });
  assert.equal((await r.h.ok("session/prompt", { sessionId: b.sessionId, text: "Code word BRAVO-3 again." })).text, "Answer for bravo.");
  await finish(r);
});
