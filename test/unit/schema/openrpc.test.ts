// The protocol document is a valid OpenRPC document (the @open-rpc/meta-schema, draft-07).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import metaSchema from "@open-rpc/meta-schema";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const document = JSON.parse(readFileSync(path.join(root, "schema/a4aa.v1.openrpc.json"), "utf8")) as Record<string, unknown>;

// The meta-schema points at https://meta.json-schema.tools (a draft-07 meta-schema that is not
// installed); ajv ships draft-07, so the refs are pointed at it.
function localRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(localRefs);
  if (v && typeof v === "object") {
    const ref = (v as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && ref.startsWith("https://meta.json-schema.tools")) {
      return ref.endsWith("/properties/$ref") ? { type: "string" } : { $ref: "http://json-schema.org/draft-07/schema#" };
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, localRefs(x)]));
  }
  return v;
}

function compileMeta() {
  const schema = localRefs((metaSchema as { default?: unknown }).default ?? metaSchema) as Record<string, unknown>;
  delete schema.$schema;
  const AjvClass = (Ajv as unknown as { default: typeof Ajv.default }).default ?? Ajv;
  return new AjvClass({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
}

test("schema/a4aa.v1.openrpc.json is a valid OpenRPC document", () => {
  const validate = compileMeta();
  assert.ok(validate(document), JSON.stringify(validate.errors, null, 2));
});

test("the meta-schema check catches a broken document", () => {
  const validate = compileMeta();
  const broken = structuredClone(document) as { methods: Record<string, unknown>[] };
  broken.methods[0].paramStructure = "byname";
  assert.equal(validate(broken), false);
  const noInfo = structuredClone(document);
  delete noInfo.info;
  assert.equal(validate(noInfo), false);
});

test("every x- extension used on a method is declared in x-extensions", () => {
  const declared = new Set((document["x-extensions"] as { name: string }[]).map((e) => e.name));
  for (const m of document.methods as Record<string, unknown>[]) {
    for (const k of Object.keys(m).filter((k) => k.startsWith("x-"))) assert.ok(declared.has(k), `${String(m.name)}: ${k} is not declared`);
  }
});
