// docs/protocol.md (generated; codegen:check keeps it fresh) covers the whole document:
// every method, type, field, enum value, error code and example file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const doc = readFileSync(path.join(root, "docs/protocol.md"), "utf8");
const schema = JSON.parse(readFileSync(path.join(root, "schema/a4aa.v1.openrpc.json"), "utf8")) as {
  methods: { name: string; params: { name: string }[] }[];
  components: { schemas: Record<string, Record<string, unknown>>; errors: Record<string, { code: number }> };
};

test("every method and its params", () => {
  for (const m of schema.methods) {
    assert.ok(doc.includes(`### Method \`${m.name}\``), m.name);
    for (const p of m.params) assert.ok(doc.includes(`| \`${p.name}\` |`), `${m.name} ${p.name}`);
  }
});

test("every type, field and enum value", () => {
  const walk = (where: string, s: unknown): void => {
    if (!s || typeof s !== "object") return;
    const o = s as Record<string, unknown>;
    for (const k of Object.keys((o.properties ?? {}) as object)) assert.ok(new RegExp(`\\| \`([\\w.\\[\\]]+\\.)?${k}\` \\|`).test(doc), `${where}.${k}`);
    for (const v of (o.enum ?? []) as unknown[]) assert.ok(doc.includes(`\`${JSON.stringify(v)}\``), `${where} ${String(v)}`);
    for (const [k, x] of Object.entries(o)) if (k !== "enum") walk(`${where}.${k}`, x);
  };
  for (const [name, s] of Object.entries(schema.components.schemas)) {
    assert.ok(doc.includes(`### \`${name}\``), name);
    walk(name, s);
  }
});

test("every error code", () => {
  for (const [name, e] of Object.entries(schema.components.errors)) assert.ok(doc.includes(`| ${name} | \`${e.code}\` |`), name);
});

test("every example file is embedded", () => {
  const dir = path.join(root, "schema/examples");
  for (const t of readdirSync(dir)) for (const f of readdirSync(path.join(dir, t))) assert.ok(doc.includes(`(\`${f}\`):`), `${t}/${f}`);
});
