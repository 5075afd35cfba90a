// TypeScript types for every named schema type, by json-schema-to-typescript.
import { compile } from "json-schema-to-typescript";
import { bundleSchema, type JsonSchema, type ProtocolModel } from "../model.js";
import { header, type Emitter } from "../emitter.js";

// json-schema-to-typescript turns `{$ref, description}` into a fresh alias (JsonValue1, …);
// keep only the ref so each property points at the one named type.
function dropRefSiblings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropRefSiblings);
  if (value && typeof value === "object") {
    const obj = value as JsonSchema;
    if (typeof obj.$ref === "string") return { $ref: obj.$ref };
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, dropRefSiblings(v)]));
  }
  return value;
}

const ROOT = "A4aaProtocolTypes";

export const tsTypesEmitter: Emitter = {
  name: "ts-types",
  async emit(model: ProtocolModel) {
    const bundle = dropRefSiblings(bundleSchema(model)) as JsonSchema;
    const root: JsonSchema = {
      ...bundle,
      title: ROOT,
      type: "object",
      properties: Object.fromEntries(model.typeNames.map((n) => [n, { $ref: `#/$defs/${n}` }])),
      additionalProperties: false,
    };
    delete root.$schema;
    delete root.$id;
    const out = await compile(root as never, ROOT, {
      bannerComment: "",
      additionalProperties: false,
      strictIndexSignatures: true,
      declareExternallyReferenced: true,
      unreachableDefinitions: true,
      enableConstEnums: false,
      format: true,
      style: { printWidth: 120, singleQuote: false, trailingComma: "all" },
    });
    const body = out
      // The root interface only exists to make every $def reachable.
      .replace(new RegExp(`export interface ${ROOT} \\{[\\s\\S]*?\\n\\}\\n`), "")
      .replace(/\n \*\n \* This interface was referenced by `[^`]+`'s JSON-Schema\n \* via the `definition` "[^"]+"\./g, "")
      .replace(/\/\*\*\n \* This interface was referenced by `[^`]+`'s JSON-Schema\n \* via the `definition` "[^"]+"\.\n \*\/\n/g, "");
    for (const m of body.matchAll(/^export (?:type|interface) ([A-Za-z]+\d+)\b/gm)) {
      throw new Error(`ts-types: json-schema-to-typescript invented the name ${m[1]}; give that schema a named $ref`);
    }
    return [{ path: "generated/ts/types.ts", content: `${header(model, "//")}\n${body}` }];
  },
};
