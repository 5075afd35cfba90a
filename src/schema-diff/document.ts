// One version of the OpenRPC document, read the way the compatibility rules need it:
// named types with their refs as written, and one synthesized params object per method.
// (codegen/model.ts does the same for the generators, but it is not shipped with the CLI.)

export type Schema = { [key: string]: unknown };
export type Direction = "hostToSidecar" | "sidecarToHost";

export interface MethodDoc {
  name: string;
  direction: Direction;
  notification: boolean;
  paramStructure: string;
  experimental: boolean;
  summary?: string;
  description?: string;
  /** Name of the params object type (`x-params-type`, or PascalCase + `Params`). */
  paramsType: string;
  /** The params as one object schema; closed for host → sidecar methods, like the generated validators. */
  params: Schema;
  /** The result schema as written (a `$ref`), absent for notifications. */
  result?: Schema;
  /** Names of `components.errors` the method lists. */
  errors: string[];
}

export interface ErrorDoc {
  code: number;
  message: string;
  data?: unknown;
}

export interface ProtocolDoc {
  /** Where it came from, for messages: a path, `REF:path`, or `working tree`. */
  label: string;
  version: string;
  protocol: string;
  info: Schema;
  methods: Map<string, MethodDoc>;
  types: Map<string, Schema>;
  errors: Map<string, ErrorDoc>;
}

export const COMPONENT_REF = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/;
const ERROR_REF = /^#\/components\/errors\/([A-Za-z0-9_]+)$/;

export function pascalCase(methodName: string): string {
  return methodName
    .split(/[/._-]/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join("");
}

export class DocumentError extends Error {}

export function parseDocument(text: string, label: string): ProtocolDoc {
  let raw: Schema;
  try {
    raw = JSON.parse(text) as Schema;
  } catch (err) {
    throw new DocumentError(`${label}: not JSON (${(err as Error).message})`);
  }
  return readDocument(raw, label);
}

export function readDocument(raw: Schema, label: string): ProtocolDoc {
  const fail = (msg: string): never => {
    throw new DocumentError(`${label}: ${msg}`);
  };
  const info = (raw.info ?? fail("info is missing")) as Schema;
  const components = (raw.components ?? {}) as Schema;
  const types = new Map<string, Schema>(Object.entries((components.schemas ?? {}) as Record<string, Schema>));
  const errors = new Map<string, ErrorDoc>(Object.entries((components.errors ?? {}) as Record<string, ErrorDoc>));
  const methods = new Map<string, MethodDoc>();
  for (const m of (raw.methods ?? fail("methods is missing")) as Schema[]) {
    const name = m.name as string;
    const direction = m["x-direction"] as Direction;
    if (direction !== "hostToSidecar" && direction !== "sidecarToHost") fail(`method ${name} has no valid x-direction`);
    const properties: Schema = {};
    const required: string[] = [];
    for (const p of (m.params ?? []) as Schema[]) {
      const prop: Schema = { ...(p.schema as Schema) };
      if (p.description !== undefined) prop.description = p.description;
      if (p["x-experimental"] !== undefined) prop["x-experimental"] = p["x-experimental"];
      properties[p.name as string] = prop;
      if (p.required === true) required.push(p.name as string);
    }
    const params: Schema = { type: "object", properties, required };
    if (direction === "hostToSidecar") params.additionalProperties = false;
    const result = m.result as Schema | undefined;
    methods.set(name, {
      name,
      direction,
      notification: m["x-notification"] === true,
      paramStructure: (m.paramStructure as string | undefined) ?? "either",
      experimental: m["x-experimental"] === true,
      summary: m.summary as string | undefined,
      description: m.description as string | undefined,
      paramsType: (m["x-params-type"] as string | undefined) ?? `${pascalCase(name)}Params`,
      params,
      result: result ? { ...(result.schema as Schema), ...(result["x-experimental"] ? { "x-experimental": true } : {}) } : undefined,
      errors: ((m.errors ?? []) as Schema[]).map((e) => {
        const ref = typeof e.$ref === "string" ? ERROR_REF.exec(e.$ref) : null;
        return ref ? ref[1] : `${String(e.code)} ${String(e.message)}`;
      }),
    });
  }
  return {
    label,
    version: String(info.version ?? ""),
    protocol: String(raw["x-protocol"] ?? info.title ?? ""),
    info,
    methods,
    types,
    errors,
  };
}

/** The component a `$ref` names, or undefined for an inline schema. */
export function refName(schema: Schema | undefined): string | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== "string") return undefined;
  const m = COMPONENT_REF.exec(ref);
  if (!m) throw new DocumentError(`unsupported $ref ${ref}: only #/components/schemas/<Name> refs are allowed`);
  return m[1];
}

/** Follows `$ref`s to the named schema; annotations written beside a `$ref` are kept on top. */
export function resolve(doc: ProtocolDoc, schema: Schema): { schema: Schema; name?: string } {
  let name: string | undefined;
  let s = schema;
  const seen = new Set<string>();
  for (;;) {
    const n = refName(s);
    if (!n) break;
    if (seen.has(n)) throw new DocumentError(`${doc.label}: $ref cycle through ${n}`);
    seen.add(n);
    const target = doc.types.get(n);
    if (!target) throw new DocumentError(`${doc.label}: $ref to unknown type ${n}`);
    name ??= n;
    s = target;
  }
  return { schema: s, name };
}

/** Every name the methods and errors reach, with the message part that carries it. */
export function errorDataTypes(doc: ProtocolDoc): string[] {
  // components.errors describe their `data` in prose ("ErrorData with code …"); a component
  // type named as the first word is what the sidecar writes there.
  const out = new Set<string>();
  for (const e of doc.errors.values()) {
    const first = typeof e.data === "string" ? /^([A-Z][A-Za-z0-9]*)\b/.exec(e.data)?.[1] : undefined;
    if (first && doc.types.has(first)) out.add(first);
  }
  return [...out];
}
