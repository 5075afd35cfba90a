// The remote soak (issue 25; R-REMOTE-4, -6, -10): the TypeScript client drives four sessions
// of the fake agent over `a4aa serve --listen` through a TCP proxy that cuts every connection
// at random moments (seeded: A4AA_SOAK_SEED; A4AA_SOAK_CUTS, default 1,000) while turns stream
// and ask permission. Then, per session: what the application read is the journal event for
// event (each once, in order, no gap), every turn's outcome arrived once, no turn ran twice,
// every permission was decided once; and nothing is left running.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { TurnEnd, connect, type RemoteClient, type StreamItem, type TurnOutcome } from "../../clients/ts/index.js";
import { proxyTo } from "../helpers/cut-proxy.js";
import { prng } from "../fuzz/frames.js";
import { fakeAgentSpec, waitNoProcesses } from "../helpers/sidecar.js";
import { scratchDir } from "../helpers/tmp.js";
import { remoteSetup } from "../integration/remote/setup.js";

const CUTS = Number(process.env.A4AA_SOAK_CUTS ?? 1000);
const SEED = Number(process.env.A4AA_SOAK_SEED ?? randomInt(2 ** 31));
const SESSIONS = 4;
const TOKEN = "soak-token-0123456789abcdef";
/** Longest a turn may take, cuts and reconnections included, before the soak fails. */
const TURN_DEADLINE_MS = 60_000;

function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms (seed ${SEED})`)), ms)))]).finally(() => clearTimeout(t));
}

const { start, marker } = remoteSetup();

test(`R-REMOTE-10 soak: ${CUTS} forced disconnects during streaming turns with permissions — each event once, each outcome once, no turn twice, nothing left`, { timeout: 300_000 }, async () => {
  console.log(`soak: seed ${SEED} (A4AA_SOAK_SEED=${SEED} repeats this cut schedule), ${CUTS} cuts, ${SESSIONS} sessions`);
  const dir = scratchDir("a4aa-soak");
  writeFileSync(path.join(dir, "tokens"), `soak:${TOKEN}\n`);
  const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", path.join(dir, "tokens")]);
  const proxy = await proxyTo(await s.url());
  const m = marker();
  let asked = 0;
  const logs: string[] = [];
  const c: RemoteClient = await connect(proxy.url, {
    token: TOKEN,
    onLog: (t) => logs.push(t),
    // Cuts come every ~40 ms: a reconnection may itself be cut, many times over.
    reconnect: { initialDelayMs: 5, maxDelayMs: 100, maxAttempts: 10_000, maxTimeMs: 120_000 },
    onPermission: () => {
      asked++;
      return { selected: "yes" };
    },
  });
  const t0 = Date.now();
  let cuts = 0;
  const random = prng(SEED);
  let stopCutting = false;
  const cutter = (async () => {
    while (cuts < CUTS && !stopCutting) {
      await new Promise((r) => setTimeout(r, 5 + Math.floor(random() * 70)));
      proxy.cut();
      cuts++;
    }
  })();

  try {
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      ids.push((await deadline(c.sessionOpen({ spec: fakeAgentSpec(m), cwd: dir }), TURN_DEADLINE_MS, "session/open")).sessionId);
    }
    // What the application reads of each session, all turns long.
    const read = new Map<string, StreamItem[]>(ids.map((id) => [id, []]));
    const readers = ids.map(async (id) => {
      for await (const e of c.events(id)) read.get(id)!.push(e);
    });
    const outcomes = new Map<string, TurnOutcome[]>(ids.map((id) => [id, []]));
    // Each session runs turns until the cuts are done: a marker chunk, a permission, 10 chunks.
    await Promise.all(
      ids.map(async (id) => {
        for (let turn = 1; cuts < CUTS; turn++) {
          const outcome = await deadline(c.prompt(id, `text:turn-${turn}-start;permission;slow:10`), TURN_DEADLINE_MS, `${id} turn ${turn}`);
          outcomes.get(id)!.push(outcome);
        }
      }),
    );
    stopCutting = true;
    await cutter;
    const seconds = (Date.now() - t0) / 1000;

    let events = 0;
    for (const id of ids) {
      const history = await deadline(c.sessionHistory({ sessionId: id, limit: 10_000 }), TURN_DEADLINE_MS, "session/history");
      assert.equal(history.firstSeq, 1, "the journal holds the whole session");
      assert.deepEqual(history.events.map((h) => h.seq), Array.from({ length: history.events.length }, (_, i) => i + 1), "seq 1, 2, 3… with no gap");
      // What the application read is the journal, event for event: each once, in order.
      assert.deepEqual(
        read.get(id)!.filter((e) => !(e instanceof TurnEnd)),
        history.events.map((h) => h.event),
        `${id}: the events read are the journal's (seed ${SEED})`,
      );
      events += history.events.length;
      const turns = outcomes.get(id)!;
      const texts = history.events.flatMap((h) => (h.event.type === "messageChunk" ? [h.event.text] : []));
      for (let turn = 1; turn <= turns.length; turn++) {
        const o = turns[turn - 1]!;
        assert.equal(o.stopReason, "endTurn", `${id} turn ${turn}`);
        assert.equal((o.text ?? "").replace(/\n/g, ""), `turn-${turn}-startoutcome:selected:yes${Array.from({ length: 10 }, (_, i) => `${i + 1} `).join("")}`, `${id} turn ${turn}: its outcome, once, whole`);
        assert.equal(texts.filter((t) => t === `turn-${turn}-start`).length, 1, `${id} turn ${turn} ran once`);
      }
      assert.equal(texts.filter((t) => /^turn-\d+-start$/.test(t)).length, turns.length, `${id}: no turn ran that was not asked for, none twice`);
      const resolved = history.events.filter((h) => h.event.type === "permissionResolved");
      assert.equal(resolved.length, turns.length, `${id}: one permission decided per turn`);
      assert.ok(resolved.every((h) => h.event.type === "permissionResolved" && h.event.outcome === "selected"), `${id}: each decided by the host`);
    }
    const turnsRun = [...outcomes.values()].reduce((n, o) => n + o.length, 0);
    console.log(
      `soak: ${cuts} cuts in ${seconds.toFixed(1)} s, ${c.reconnects} reconnections, ${proxy.accepted()} connections, ` +
        `${turnsRun} turns, ${events} events, ${turnsRun} permissions (asked ${asked} times: a request pending at a cut is asked again)`,
    );
    assert.equal(cuts, CUTS);
    assert.ok(c.reconnects >= CUTS / 4, `reconnected after the cuts (${c.reconnects})`);

    for (const id of ids) await deadline(c.sessionClose({ sessionId: id }), TURN_DEADLINE_MS, "session/close");
    await Promise.all(readers);
  } finally {
    stopCutting = true;
    await cutter;
    await c.close();
    await proxy.close();
  }
  assert.deepEqual(await s.stop(), { code: 0, signal: null });
  assert.deepEqual(await waitNoProcesses(m, 10_000), [], "no agent is left running");
});
