// ajv standalone validators (draft 2020-12, strict, discriminator) for every named type.
import Ajv2020 from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import type { ProtocolModel } from "../model.js";
import { header, type Emitter } from "../emitter.js";

/** Schema keywords that are annotations for other generators, not validation. */
export const ANNOTATION_KEYWORDS = ["tsType", "x-experimental", "x-open", "x-error-codes", "x-empty-means-absent", "x-preset-rules", "x-session-process"];

export function createAjv(): Ajv2020.default {
  const Ajv = (Ajv2020 as unknown as { default: typeof Ajv2020.default }).default ?? Ajv2020;
  const ajv = new Ajv({
    strict: true,
    allErrors: false,
    discriminator: true,
    allowUnionTypes: true,
    inlineRefs: false,
    code: { source: true, esm: true, lines: false },
  });
  for (const k of ANNOTATION_KEYWORDS) ajv.addKeyword(k);
  return ajv;
}

// Descriptions and generator annotations do not validate anything; dropping them keeps the
// standalone module small (it embeds each schema), which keeps the sidecar's start-up fast.
function stripAnnotations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripAnnotations);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === "description" || ANNOTATION_KEYWORDS.includes(k)) continue;
      // A property may be *named* description: only drop the keyword, never a `properties` key.
      out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([pk, pv]) => [pk, stripAnnotations(pv)])) : stripAnnotations(v);
    }
    return out;
  }
  return value;
}

const ID_BASE = "https://a4aa.dev/schema/v1/";

function retarget(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(retarget);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" ? v.replace(/^#\/\$defs\//, ID_BASE) : retarget(v),
      ]),
    );
  }
  return value;
}

export const validatorsEmitter: Emitter = {
  name: "validators",
  emit(model: ProtocolModel) {
    const ajv = createAjv();
    // One schema per type, each with its own $id, so that a type used in many places is
    // compiled once and shared (a single bundle compiles a copy per entry point).
    const exports: Record<string, string> = {};
    for (const name of model.typeNames) {
      const schema = retarget(stripAnnotations(model.types[name])) as Record<string, unknown>;
      ajv.addSchema({ ...schema, $id: `${ID_BASE}${name}` });
      exports[`validate${name}`] = `${ID_BASE}${name}`;
    }
    type Standalone = (ajv: Ajv2020.default, refs: Record<string, string>) => string;
    const mod = standaloneCode as unknown as { default?: Standalone };
    const standalone: Standalone = mod.default ?? (standaloneCode as unknown as Standalone);
    const code = standalone(ajv, exports);
    // ajv's ESM output still calls require() for its runtime helpers (ucs2length, equal).
    const js = `${header(model, "//")}/* eslint-disable */
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
${code}
`;
    const dts = `${header(model, "//")}
import type { ErrorObject } from "ajv";
import type * as T from "./types.js";

/** A generated validator: a type guard that leaves ajv's errors on \`.errors\` when it fails. */
export interface Validator<D> {
  (data: unknown): data is D;
  errors?: ErrorObject[] | null;
}

${model.typeNames.map((n) => `export declare const validate${n}: Validator<T.${n}>;`).join("\n")}
`;
    return [
      { path: "generated/ts/validators.js", content: js },
      { path: "generated/ts/validators.d.ts", content: dts },
    ];
  },
};
