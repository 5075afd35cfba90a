import { test } from "node:test";
import assert from "node:assert/strict";
import { PermissionBroker, presetChoice } from "../../../src/sessions/permissions.js";
import { createLogger } from "../../../src/log.js";
import { FlowGate } from "../../../src/transport/ndjson-writer.js";
import type { PermissionAsk } from "../../../src/lanes/lane.js";

const options = [
  { optionId: "always", name: "Always", kind: "allowAlways" as const },
  { optionId: "once", name: "Once", kind: "allowOnce" as const },
  { optionId: "no", name: "No", kind: "rejectOnce" as const },
  { optionId: "never", name: "Never", kind: "rejectAlways" as const },
];
const ask = (kind: PermissionAsk["kind"]): PermissionAsk => ({ toolCallId: "t", title: "x", kind, contentTexts: [], options, raw: {} });

function broker(preset: "ask" | "acceptEdits" | "readOnly" | "bypass", answer: (signal: AbortSignal) => Promise<unknown>, timeoutMs?: number) {
  const events: unknown[] = [];
  let asked = 0;
  const b = new PermissionBroker({
    sessionId: "s",
    preset,
    timeoutMs,
    logger: createLogger("error", () => undefined),
    emit: (e) => events.push(e),
    host: {
      gate: new FlowGate(),
      event: () => undefined,
      requestPermission: (_r, signal) => {
        asked++;
        return answer(signal);
      },
    },
  });
  return { b, events, asked: () => asked };
}
const never = (signal: AbortSignal) => new Promise((_, rej) => signal.addEventListener("abort", () => rej(signal.reason)));

test("presets: what each decides by kind", () => {
  assert.equal(presetChoice("ask", "read"), null);
  assert.deepEqual(presetChoice("acceptEdits", "edit"), { allow: true });
  assert.equal(presetChoice("acceptEdits", "execute"), null);
  assert.deepEqual(presetChoice("readOnly", "search"), { allow: true });
  assert.deepEqual(presetChoice("readOnly", "delete"), { allow: false });
  assert.deepEqual(presetChoice("bypass", "execute"), { allow: true });
});

test("a preset picks a once option, never an always one, and reports decidedBy policy", async () => {
  const { b, events, asked } = broker("bypass", async () => ({ selected: "always" }));
  assert.deepEqual(await b.decide(ask("execute"), new AbortController().signal), { outcome: "selected", optionId: "once" });
  const r = await broker("readOnly", async () => ({})).b.decide(ask("execute"), new AbortController().signal);
  assert.deepEqual(r, { outcome: "selected", optionId: "no" });
  assert.equal(asked(), 0);
  assert.deepEqual(events, [{ type: "permissionResolved", toolCallId: "t", outcome: "selected", optionId: "once", decidedBy: "policy" }]);
});

test("the host's valid choice is taken (decidedBy host)", async () => {
  const { b, events } = broker("ask", async () => ({ selected: "always" }));
  assert.deepEqual(await b.decide(ask("execute"), new AbortController().signal), { outcome: "selected", optionId: "always" });
  assert.equal((events[0] as { decidedBy: string }).decidedBy, "host");
});

for (const [name, answer] of [
  ["an error response", async () => Promise.reject(new Error("host said no"))],
  ["a malformed result", async () => ({ selected: 3 })],
  ["an extra field", async () => ({ selected: "once", also: true })],
  ["an unknown option id", async () => ({ selected: "yes-please" })],
  ["an explicit cancel", async () => ({ cancelled: true })],
  ["the transport closing", async () => Promise.reject(new Error("peer_closed"))],
] as const) {
  test(`fails closed on ${name} (R-PERM-1)`, async () => {
    const { b } = broker("ask", answer as () => Promise<unknown>);
    assert.deepEqual(await b.decide(ask("execute"), new AbortController().signal), { outcome: "cancelled" });
  });
}

test("fails closed when the turn is cancelled while the host thinks (R-PERM-1)", async () => {
  const { b } = broker("ask", never);
  const ac = new AbortController();
  const p = b.decide(ask("execute"), ac.signal);
  ac.abort(new Error("cancelled"));
  assert.deepEqual(await p, { outcome: "cancelled" });
});

test("fails closed at --permission-timeout (R-PERM-1)", async () => {
  const { b, events } = broker("ask", never, 20);
  assert.deepEqual(await b.decide(ask("execute"), new AbortController().signal), { outcome: "cancelled" });
  assert.deepEqual(events, [{ type: "permissionResolved", toolCallId: "t", outcome: "cancelled", decidedBy: "policy" }]);
});
