// The protocol model every emitter reads: the OpenRPC document plus the params
// object types that OpenRPC leaves implicit (one per method, from its by-name params).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

export type JsonSchema = { [key: string]: unknown };

export type Direction = "hostToSidecar" | "sidecarToHost";

export interface MethodModel {
  /** The wire name, e.g. `session/open`. */
  name: string;
  summary: string;
  description?: string;
  direction: Direction;
  notification: boolean;
  /** Name of the (synthesized) params object type. */
  paramsType: string;
  /** Name of the result type; absent for notifications. */
  resultType?: string;
  experimental: boolean;
}

export interface ProtocolModel {
  /** Path of the source document relative to the repository root. */
  source: string;
  /** The document as parsed. */
  document: JsonSchema;
  /** The document's exact text (rpc.discover answers with it). */
  documentText: string;
  protocol: string;
  version: string;
  methods: MethodModel[];
  /** Every named type: components.schemas plus the synthesized params types, refs as `#/$defs/Name`. */
  types: Record<string, JsonSchema>;
  /** Names in a stable order: components first (document order), then params types (method order). */
  typeNames: string[];
}

/** The repository root, from the sources (codegen/) or from the build (dist/codegen/). */
export const repoRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRoot(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, "schema", "a4aa.v1.openrpc.json"))) return d;
    if (path.dirname(d) === d) return path.resolve(dir, "..");
  }
}
export const defaultSource = "schema/a4aa.v1.openrpc.json";

const COMPONENT_REF = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/;

/** Rewrites `#/components/schemas/X` refs to `#/$defs/X`, deeply, returning a copy. */
export function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === "object") {
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") {
        const m = COMPONENT_REF.exec(v);
        if (!m) throw new Error(`unsupported $ref ${v}: only #/components/schemas/<Name> refs are allowed`);
        out[k] = `#/$defs/${m[1]}`;
      } else {
        out[k] = rewriteRefs(v);
      }
    }
    return out;
  }
  return value;
}

export function pascalCase(methodName: string): string {
  return methodName
    .split(/[/._-]/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join("");
}

export function loadModel(source = defaultSource, text?: string): ProtocolModel {
  const documentText = text ?? readFileSync(path.join(repoRoot, source), "utf8");
  return buildModel(JSON.parse(documentText) as JsonSchema, documentText, source);
}

export function buildModel(document: JsonSchema, documentText: string, source: string): ProtocolModel {
  const components = (document.components as JsonSchema | undefined)?.schemas as Record<string, JsonSchema> | undefined;
  if (!components) throw new Error(`${source}: components.schemas is missing`);
  const types: Record<string, JsonSchema> = {};
  const typeNames: string[] = [];
  for (const [name, schema] of Object.entries(components)) {
    types[name] = rewriteRefs(schema) as JsonSchema;
    typeNames.push(name);
  }

  const methods: MethodModel[] = [];
  for (const raw of document.methods as JsonSchema[]) {
    const name = raw.name as string;
    const direction = raw["x-direction"] as Direction;
    if (direction !== "hostToSidecar" && direction !== "sidecarToHost") {
      throw new Error(`${source}: method ${name} has no valid x-direction`);
    }
    const notification = raw["x-notification"] === true;
    const paramsType = (raw["x-params-type"] as string | undefined) ?? `${pascalCase(name)}Params`;
    const params = raw.params as JsonSchema[];
    const properties: JsonSchema = {};
    const required: string[] = [];
    for (const p of params) {
      const schema = rewriteRefs(p.schema) as JsonSchema;
      properties[p.name as string] = {
        ...(p.description ? { description: p.description } : {}),
        ...schema,
        // An experimental param stays visible to generators and the breaking-change gate.
        ...(p["x-experimental"] === true ? { "x-experimental": true } : {}),
      };
      if (p.required === true) required.push(p.name as string);
    }
    const paramsSchema: JsonSchema = {
      description: `Params of \`${name}\`: ${raw.summary as string}`,
      type: "object",
      properties,
    };
    if (required.length) paramsSchema.required = required;
    // What the host sends is strict (typos never pass silently); what the sidecar sends may grow.
    if (direction === "hostToSidecar") paramsSchema.additionalProperties = false;
    if (types[paramsType]) throw new Error(`${source}: params type ${paramsType} of ${name} clashes with a component`);
    types[paramsType] = paramsSchema;
    typeNames.push(paramsType);

    let resultType: string | undefined;
    const result = raw.result as JsonSchema | undefined;
    if (notification && result) throw new Error(`${source}: notification ${name} must not have a result`);
    if (!notification) {
      if (!result) throw new Error(`${source}: method ${name} has no result and is not marked x-notification`);
      const ref = (result.schema as JsonSchema).$ref as string | undefined;
      const m = ref ? COMPONENT_REF.exec(ref) : null;
      if (!m) throw new Error(`${source}: the result of ${name} must be a $ref to a component schema`);
      resultType = m[1];
    }
    methods.push({
      name,
      summary: raw.summary as string,
      description: raw.description as string | undefined,
      direction,
      notification,
      paramsType,
      resultType,
      experimental: raw["x-experimental"] === true,
    });
  }
  const info = document.info as JsonSchema;
  return {
    source,
    document,
    documentText,
    protocol: document["x-protocol"] as string,
    version: info.version as string,
    methods,
    types,
    typeNames,
  };
}

/** One JSON Schema (2020-12) holding every named type under `$defs`. */
export function bundleSchema(model: ProtocolModel, id = "a4aa.v1"): JsonSchema {
  const defs: JsonSchema = {};
  for (const name of model.typeNames) defs[name] = model.types[name];
  return { $schema: "https://json-schema.org/draft/2020-12/schema", $id: id, $defs: defs };
}
