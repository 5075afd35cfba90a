// R-USAGE-1: a real agent's turn usage is the one `usage` shape (schema Usage) with only what
// the agent gave: every key is the schema's, every figure a non-negative number, and the keys
// are exactly those measured for that agent (a new key or a missing one fails, so the README's
// table stays true). Used by the real suites' plain-text turn.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const SCHEMA = JSON.parse(readFileSync(path.join(ROOT, "schema/a4aa.v1.openrpc.json"), "utf8"));
const USAGE_KEYS = Object.keys(SCHEMA.components.schemas.Usage.properties);




export function checkUsage(who: string, usage: Record<string, unknown> | undefined, expected?: readonly string[]): void {
  assert.ok(usage, `${who}: the turn reports usage`);
  for (const [k, v] of Object.entries(usage)) {
    assert.ok(USAGE_KEYS.includes(k), `${who}: usage.${k} is not in the schema's Usage (${USAGE_KEYS.join(", ")})`);
    assert.ok(typeof v === "number" && Number.isFinite(v) && v >= 0, `${who}: usage.${k} = ${JSON.stringify(v)}`);
    if (k !== "costUsd") assert.ok(Number.isInteger(v), `${who}: usage.${k} = ${v} is a token count`);
  }
  const keys = Object.keys(usage).sort();
  console.log(`usage keys, ${who}: ${keys.join(", ")} ${JSON.stringify(usage)}`);
  if (expected) assert.deepEqual(keys, [...expected].sort(), `${who}: the usage keys measured for it`);
}
