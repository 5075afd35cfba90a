// The schema's words about errors and the runtime's errors agree: the JSON-RPC code and
// message each A4aaError answers with are the schema's (ErrorCode's x-error-codes and
// components.errors), and the prose of the document says the same as its tables.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { A4aaError, errors } from "../../src/errors.js";
import { METHODS } from "../../generated/ts/methods.js";
import type { ErrorCode } from "../../generated/ts/types.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const doc = JSON.parse(readFileSync(path.join(root, "schema/a4aa.v1.openrpc.json"), "utf8"));
const codeSchema = doc.components.schemas.ErrorCode;
const table: Record<string, { rpcError: string; message: string; retryable?: boolean }> = codeSchema["x-error-codes"];
const rpcErrors: Record<string, { code: number; message: string; data: string }> = doc.components.errors;
const CODES = codeSchema.enum as ErrorCode[];
const camel = (c: string) => c.replace(/_([a-z0-9])/g, (_, x: string) => x.toUpperCase());

test("every error code answers with the JSON-RPC code and message the schema gives it", () => {
  for (const code of CODES) {
    const e = new A4aaError(code, "prompt", "what happened");
    const want = table[code];
    assert.deepEqual(
      { code: e.toRpcError().code, message: e.toRpcError().message, retryable: e.retryable },
      { code: rpcErrors[want.rpcError].code, message: want.message, retryable: want.retryable === true },
      code,
    );
    assert.equal(e.message, `${want.message}: what happened`);
  }
});

test("there is one generated constructor per error code, and it makes that code", () => {
  for (const code of CODES) {
    const make = (errors as unknown as Record<string, (...a: unknown[]) => A4aaError>)[camel(code)];
    assert.equal(typeof make, "function", `errors.${camel(code)}`);
  }
  const e = errors.sessionClosing("close", "the session is closing");
  assert.deepEqual(e.toData(), { code: "session_closing", stage: "close", retryable: false, uncertainEffect: false, detail: "the session is closing" });
  assert.equal(errors.turnInProgress("prompt").retryable, true);
});

test("ErrorCode's description names the same JSON-RPC code for each error code as x-error-codes", () => {
  const text = codeSchema.description as string;
  const said = new Map<string, number>();
  // "-32602 for `invalid_params`, …, -32600 for `frame_too_large` and `invalid_request`"
  for (const m of text.matchAll(/(-32\d{3}) for ((?:`[a-z0-9_]+`(?: \([^)]*\))?(?:,? and |, )?)+)/g)) {
    for (const c of m[2].matchAll(/`([a-z0-9_]+)`/g)) said.set(c[1], Number(m[1]));
  }
  const otherwise = Number(/(-32\d{3}) otherwise/.exec(text)?.[1]);
  assert.equal(otherwise, rpcErrors.AdapterError.code);
  for (const code of CODES) assert.equal(said.get(code) ?? otherwise, rpcErrors[table[code].rpcError].code, code);
});

test("each components.errors entry's data names exactly the error codes that answer with it", () => {
  for (const [name, e] of Object.entries(rpcErrors)) {
    const mapped = CODES.filter((c) => table[c].rpcError === name).sort();
    if (/any other code/.test(e.data)) {
      assert.ok(mapped.length > 0, name);
      continue;
    }
    const named = [...e.data.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]).filter((c) => CODES.includes(c as ErrorCode)).sort();
    assert.deepEqual(named, mapped, `${name}: ${e.data}`);
  }
});

test("a components.errors entry named for an error code carries that code's message", () => {
  for (const [name, e] of Object.entries(rpcErrors)) {
    const code = name.replace(/[A-Z]/g, (c, i: number) => (i ? "_" : "") + c.toLowerCase());
    if (code in table) assert.equal(e.message, table[code].message, name);
  }
});

test("every host → sidecar method declares the stage of its own errors (x-error-stage)", () => {
  for (const m of doc.methods) {
    if (m["x-direction"] !== "hostToSidecar") continue;
    assert.ok(doc.components.schemas.ErrorStage.enum.includes(m["x-error-stage"]), m.name);
    assert.equal(METHODS[m.name as keyof typeof METHODS].errorStage, m["x-error-stage"], m.name);
  }
});
