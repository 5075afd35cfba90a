// The one document model: what the generators emit from is what the schema gate judges.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DocumentError, parseModel, resolve, type ProtocolModel } from "../../../src/openrpc/model.js";
import { loadModel } from "../../../codegen/model.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const SOURCE = "schema/a4aa.v1.openrpc.json";
const TEXT = readFileSync(path.join(root, SOURCE), "utf8");
const edit = (f: (d: any) => void): string => {
  const d = JSON.parse(TEXT);
  f(d);
  return JSON.stringify(d);
};
const M = (d: any, name: string) => d.methods.find((m: any) => m.name === name);

test("codegen and the schema gate read one model of the document", () => {
  const gen: ProtocolModel = loadModel(SOURCE);
  const gate: ProtocolModel = parseModel(TEXT, SOURCE);
  assert.deepEqual(gen, gate);
});

test("params objects: refs as #/$defs, no empty required list, closed for host → sidecar", () => {
  const m = parseModel(TEXT, SOURCE);
  const ping = m.methods.find((x) => x.name === "ping")!;
  assert.equal(ping.params, m.types.PingParams);
  assert.equal("required" in ping.params, false);
  assert.equal(ping.params.additionalProperties, false);
  const open = m.methods.find((x) => x.name === "session/open")!;
  assert.deepEqual((open.params.properties as any).spec.$ref, "#/$defs/AgentSpec");
  assert.deepEqual(open.result, { $ref: "#/$defs/OpenResult" });
  assert.equal(resolve(m, open.result!).name, "OpenResult");
  const event = m.methods.find((x) => x.name === "session/event")!;
  assert.equal(event.params.additionalProperties, undefined);
  assert.ok(!JSON.stringify(m.types).includes("#/components/schemas/"));
});

test("the x- protocol facts are read and checked", () => {
  const m = parseModel(TEXT, SOURCE);
  const stages = new Map(m.methods.filter((x) => x.direction === "hostToSidecar").map((x) => [x.name, x.errorStage]));
  for (const [name, stage] of [["ping", "transport"], ["rpc.discover", "transport"], ["session/open", "open"], ["session/prompt", "prompt"], ["session/cancel", "cancel"], ["session/close", "close"]]) {
    assert.equal(stages.get(name), stage, name);
  }
  assert.ok([...stages.values()].every((s) => typeof s === "string"), "every host → sidecar method has its stage");
  assert.deepEqual(m.methods.filter((x) => x.endsEventStream).map((x) => x.name), ["session/close"]);
  assert.deepEqual(m.errorCodes.find((c) => c.code === "frame_too_large"), { code: "frame_too_large", rpcError: "InvalidRequest", rpcCode: -32600, message: "Frame too large", retryable: false, endsSession: false });
});

test("a document the generators could not emit is refused with a message naming the fix", () => {
  const bad: [string, string, RegExp][] = [
    ["request without result", edit((d) => delete M(d, "session/cancel").result), /session\/cancel has no result and is not marked x-notification/],
    ["foreign $ref", edit((d) => (d.components.schemas.Effort = { $ref: "other.json#/X" })), /unsupported \$ref other.json#\/X/],
    ["host method without x-error-stage", edit((d) => delete M(d, "session/prompt")["x-error-stage"]), /session\/prompt has no x-error-stage/],
    ["error code without its JSON-RPC error", edit((d) => d.components.schemas.ErrorCode.enum.push("quota_exceeded")), /x-error-codes has no entry for quota_exceeded/],
    ["x-error-codes naming no components.errors entry", edit((d) => (d.components.schemas.ErrorCode["x-error-codes"].spawn_failed.rpcError = "Nope")), /spawn_failed names Nope/],
    ["not JSON", "{", /not JSON/],
  ];
  for (const [what, text, msg] of bad) assert.throws(() => parseModel(text, "doc"), (e: unknown) => e instanceof DocumentError && msg.test(e.message), what);
});
