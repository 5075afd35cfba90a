// The shared examples through the TS client's types: the generated validators accept every
// valid one (which survives a JSON round trip unchanged) and reject every invalid one. The
// Go and Python suites run the same folder through their own decoders.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as V from "../../generated/ts/validators.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const DIR = path.join(ROOT, "schema/examples");
const validators = V as unknown as Record<string, ((d: unknown) => boolean) | undefined>;

const files = existsSync(DIR)
  ? readdirSync(DIR).flatMap((type) => (existsSync(path.join(DIR, type)) ? readdirSync(path.join(DIR, type)).filter((f) => f.endsWith(".json")).sort().map((f) => [type, f] as const) : []))
  : [];

test("schema/examples holds examples", () => {
  assert.ok(files.length > 0, `no examples under ${DIR}: the shared examples are missing (npm run codegen writes them)`);
});

for (const [type, file] of files) {
  test(`example ${type}/${file}`, () => {
    const validate = validators[`validate${type}`];
    assert.ok(validate, `no validator for ${type}`);
    const data: unknown = JSON.parse(readFileSync(path.join(DIR, type, file), "utf8"));
    if (file.startsWith("invalid-")) assert.equal(validate(data), false, "accepted an invalid example");
    else {
      assert.equal(validate(data), true, "rejected a valid example");
      assert.deepEqual(JSON.parse(JSON.stringify(data)), data);
    }
  });
}
