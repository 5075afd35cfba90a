// Every schema/examples/<TypeName>/{valid,invalid}-*.json against its type's generated
// validator: the docs embed these files, so docs and fixtures cannot drift from the schema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as V from "../../../generated/ts/validators.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const examples = path.join(root, "schema/examples");
const validators = V as unknown as Record<string, ((d: unknown) => boolean) & { errors?: unknown[] | null }>;
const typeNames = Object.keys(validators)
  .filter((k) => k.startsWith("validate"))
  .map((k) => k.slice("validate".length));
/** Types no JSON value can fail: they get no invalid example. */
const ACCEPTS_ANYTHING = new Set(["JsonValue"]);

test("every type has a valid and an invalid example", () => {
  const missing: string[] = [];
  for (const name of typeNames) {
    const dir = path.join(examples, name);
    const files = existsSync(dir) ? readdirSync(dir) : [];
    if (!files.some((f) => f.startsWith("valid-"))) missing.push(`${name}: no valid-*.json`);
    if (!ACCEPTS_ANYTHING.has(name) && !files.some((f) => f.startsWith("invalid-"))) missing.push(`${name}: no invalid-*.json`);
  }
  assert.deepEqual(missing, []);
});

test("every example folder names a type", () => {
  const unknown = readdirSync(examples).filter((d) => !typeNames.includes(d));
  assert.deepEqual(unknown, []);
});

for (const name of readdirSync(examples).sort()) {
  const validate = validators[`validate${name}`];
  for (const file of readdirSync(path.join(examples, name)).sort()) {
    test(`${name}/${file}`, () => {
      assert.ok(validate, `no validator for ${name}`);
      assert.match(file, /^(valid|invalid)-[a-z0-9-]+\.json$/);
      const value = JSON.parse(readFileSync(path.join(examples, name, file), "utf8")) as unknown;
      const ok = validate(value);
      if (file.startsWith("valid-")) assert.ok(ok, `${name}/${file} should pass: ${JSON.stringify(validate.errors)}`);
      else assert.ok(!ok, `${name}/${file} should fail, but the validator accepts it`);
    });
  }
}
