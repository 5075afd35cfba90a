// §12 (protocol 1.2): the journal's seq and session/history; recording without secrets.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Check } from "../harness/context.js";

export const journalChecks: Check[] = [
  {
    id: "R-SEQ-1/per-session-gapless",
    covers: ["R-SEQ-1"],
    title: "every session/event carries seq: per session from 1, no gaps, in the order sent; session/history returns the same events by seq",
    async run(ctx) {
      const h = ctx.start();
      const a = (await h.open(ctx.acp())).sessionId;
      const b = (await h.open(ctx.acp())).sessionId;
      await Promise.all([h.prompt(a, "text:one;text:two;flood:40:8;usage"), h.prompt(b, "flood:60:8;text:end")]);
      for (const sid of [a, b]) {
        const sent = h.received.filter((r) => r.msg?.method === "session/event" && r.msg.params?.sessionId === sid).map((r) => r.msg.params);
        assert.ok(sent.length >= 40, `session ${sid} streamed ${sent.length} events`);
        sent.forEach((p, i) => assert.equal(p.seq, i + 1, `event ${i + 1} of ${sid} has seq ${JSON.stringify(p.seq)}`));
        const hist = await h.request("session/history", { sessionId: sid });
        assert.ok(hist.result, `session/history failed: ${JSON.stringify(hist.error)}`);
        assert.equal(hist.result.firstSeq, 1);
        assert.equal(hist.result.lastSeq, sent.length);
        assert.deepEqual(
          hist.result.events.map((e: { seq: number; event: unknown }) => [e.seq, JSON.stringify(e.event)]),
          sent.map((p) => [p.seq, JSON.stringify(p.event)]),
          "history holds what was sent, by seq",
        );
      }
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-REC-1/no-secret-written",
    covers: ["R-REC-1"],
    title: "with --record DIR, a value from the spec's set and the open's env appears in no transcript and in no log line (debug)",
    async run(ctx) {
      const dir = path.join(ctx.tmp, "record");
      const h = ctx.start({ args: ["--record", dir, "--log-level", "debug"] });
      const specSecret = `spec-${ctx.secret}`;
      const openSecret = `open-${ctx.secret}`;
      const spec = ctx.acp();
      spec.command.env = ctx.envPolicy({ CONF_API_KEY: specSecret });
      const sid = (await h.open(spec, { env: { CONF_TOKEN: openSecret } })).sessionId;
      const r = await h.prompt(sid, `text:${specSecret};text:${openSecret}`);
      assert.ok(r.result, `the turn failed: ${JSON.stringify(r.error)}`);
      await h.api.sessionClose({ sessionId: sid });
      assert.equal(await h.end(), 0);
      const files = readdirSync(dir);
      assert.ok(files.includes(`${sid}.jsonl`), `no transcript ${sid}.jsonl in ${JSON.stringify(files)}`);
      const written = [...files.map((f) => ({ name: f, text: readFileSync(path.join(dir, f), "latin1") })), { name: "stderr", text: h.stderr }];
      for (const w of written) {
        for (const s of [specSecret, openSecret]) assert.ok(!w.text.includes(s), `${w.name} holds a secret value`);
      }
    },
  },
];
