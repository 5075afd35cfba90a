// §12 (protocol 1.2): the journal's seq and session/history; recording without secrets.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { AcpAgentSpec, AgentEvent } from "../../../generated/ts/types.js";
import type { Check } from "../harness/context.js";

/** What a replay must give again: event types and texts in order (usage, raw and stderr vary). */
function summary(events: AgentEvent[]): string[] {
  return events
    .filter((e) => !["usage", "raw", "stderr"].includes(e.type))
    .map((e) => {
      const x = e as { type: string; text?: string; title?: string; status?: string };
      return [x.type, x.text ?? x.title ?? "", x.status ?? ""].join("|");
    });
}

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
  {
    id: "R-REC-2/mode-and-sigkill",
    covers: ["R-REC-2"],
    title: "with --record DIR the transcript is mode 0600 and written as the session goes: after a SIGKILL of the sidecar mid-turn every line in it parses as JSON",
    async run(ctx) {
      const dir = path.join(ctx.tmp, "record");
      const h = ctx.start({ args: ["--record", dir] });
      const sid = (await h.open(ctx.acp())).sessionId;
      void h.prompt(sid, "text:first;slow:400");
      await h.waitFor(() => h.events(sid).length >= 5, 10_000, "the turn to stream");
      const file = path.join(dir, `${sid}.jsonl`);
      const mode = statSync(file).mode & 0o777;
      assert.equal(mode, 0o600, `the transcript's mode is ${mode.toString(8)}`);
      h.wire.signal("SIGKILL");
      await h.waitExit(5000, "after SIGKILL");
      const text = readFileSync(file, "utf8");
      const lines = text.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      assert.ok(lines.length >= 4, `only ${lines.length} lines were written before the SIGKILL (the turn had streamed ${h.events(sid).length} events)`);
      lines.forEach((l, i) => {
        assert.doesNotThrow(() => JSON.parse(l), `line ${i + 1} of ${lines.length} does not parse: ${l.slice(0, 120)}`);
      });
      assert.equal(JSON.parse(lines[0]).transcript, "a4aa", "the first line is the transcript header");
    },
  },
  {
    id: "R-REPLAY-1/acp-session",
    covers: ["R-REPLAY-1"],
    title: "a session of the fake ACP agent recorded with --record, played again as `a4aa replay FILE --instant` (the server command with replay for serve): the same event types and texts, and outcomes",
    async run(ctx) {
      const argv = ctx.server.argv;
      if (argv[argv.length - 1] !== "serve") ctx.skip(`the server command does not end in serve, so its replay command is unknown: ${argv.join(" ")}`);
      const dir = path.join(ctx.tmp, "record");
      const prompts = ["text:Hello ;tool;text:world", "text:second turn;usage"];
      const rec = ctx.start({ args: ["--record", dir] });
      const sid = (await rec.open(ctx.acp())).sessionId;
      const recorded = [];
      for (const text of prompts) recorded.push(await rec.api.sessionPrompt({ sessionId: sid, text }));
      await rec.api.sessionClose({ sessionId: sid });
      assert.equal(await rec.end(), 0);
      const file = path.join(dir, `${sid}.jsonl`);

      const replay = [...argv.slice(0, -1), "replay", file, "--instant"];
      const base = ctx.acp();
      const spec = { ...base, command: { ...base.command, program: replay[0], args: replay.slice(1) } } as AcpAgentSpec;
      const h = ctx.start();
      const rid = (await h.open(spec)).sessionId;
      const played = [];
      for (const text of prompts) played.push(await h.api.sessionPrompt({ sessionId: rid, text }));
      await h.api.sessionClose({ sessionId: rid });
      assert.equal(await h.end(), 0);
      const want = summary(rec.events(sid));
      assert.ok(want.length >= 4, `the recorded session has only ${want.length} events`);
      assert.deepEqual(summary(h.events(rid)), want, "the replay gives other events than the recorded session");
      assert.deepEqual(played.map((o) => [o.stopReason, o.text]), recorded.map((o) => [o.stopReason, o.text]), "the replay's outcomes differ");
      assert.deepEqual(await ctx.waitNoLeftovers(5000), [], "the replay agent was left running");
    },
  },
];
