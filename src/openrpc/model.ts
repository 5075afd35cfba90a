// The one model of the OpenRPC document: what every generator emits from and what the
// breaking-change gate judges. Named types carry their refs as `#/$defs/Name`; each method
// gets one synthesized params object type; the x- fields become plain properties.
// Shipped with the CLI (`a4aa schema diff`), so it depends on nothing but the document.

export type Schema = { [key: string]: unknown };
export type Direction = "hostToSidecar" | "sidecarToHost";

export interface MethodModel {
  /** The wire name, e.g. `session/open`. */
  name: string;
  summary: string;
  description?: string;
  direction: Direction;
  notification: boolean;
  paramStructure: string;
  experimental: boolean;
  /** Name of the params object type (`x-params-type`, or PascalCase + `Params`). */
  paramsType: string;
  /** The params as one object schema (also `types[paramsType]`); closed for host → sidecar methods. */
  params: Schema;
  /** Name of the result type; absent for notifications. */
  resultType?: string;
  /** The result schema (a `$ref`, with `x-experimental` when set); absent for notifications. */
  result?: Schema;
  /** Names of the `components.errors` the method lists. */
  errors: string[];
  /** `x-error-stage`: the stage of the method's own errors (host → sidecar methods). */
  errorStage?: string;
  /** `x-ends-event-stream`: a success ends the event stream of the session its `sessionId` names. */
  endsEventStream: boolean;
}

/** One entry of `components.errors`: a JSON-RPC error code the sidecar answers with. */
export interface RpcErrorModel {
  name: string;
  code: number;
  message: string;
  data?: unknown;
}

/** One a4aa error code with its `x-error-codes` entry. */
export interface ErrorCodeModel {
  code: string;
  /** The `components.errors` entry it answers with. */
  rpcError: string;
  rpcCode: number;
  /** The JSON-RPC `message`. */
  message: string;
  retryable: boolean;
  /** (1.3) A failed prompt with this code leaves the session nothing but `session/close`. */
  endsSession: boolean;
}

export interface ProtocolModel {
  /** Where it came from, for messages and generated headers: a path, `REF:path`, `working tree`. */
  source: string;
  /** The document as parsed. */
  document: Schema;
  /** The document's exact text (rpc.discover answers with it). */
  documentText: string;
  protocol: string;
  version: string;
  info: Schema;
  /** The `x-` extensions the document declares. */
  extensions: string[];
  methods: MethodModel[];
  /** Every named type: components.schemas plus the synthesized params types. */
  types: Record<string, Schema>;
  /** Names in a stable order: components first (document order), then params types (method order). */
  typeNames: string[];
  /** The names of components.schemas alone. */
  componentNames: string[];
  errors: RpcErrorModel[];
  /** Every ErrorCode value with its x-error-codes entry; empty when the document has no table. */
  errorCodes: ErrorCodeModel[];
}

export class DocumentError extends Error {}

const COMPONENT_REF = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/;
const DEF_REF = /^#\/\$defs\/([A-Za-z0-9_]+)$/;
const ERROR_REF = /^#\/components\/errors\/([A-Za-z0-9_]+)$/;

/** The `$ref` of a named type in the model. */
export const refTo = (name: string): Schema => ({ $ref: `#/$defs/${name}` });

/** The type a model `$ref` names, or undefined for an inline schema. */
export function refName(schema: Schema | undefined): string | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== "string") return undefined;
  const m = DEF_REF.exec(ref);
  if (!m) throw new DocumentError(`unsupported $ref ${ref}: only #/components/schemas/<Name> refs are allowed`);
  return m[1];
}

/** Rewrites `#/components/schemas/X` refs to `#/$defs/X`, deeply, returning a copy. */
export function rewriteRefs(value: unknown, source = "document"): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, source));
  if (value && typeof value === "object") {
    const out: Schema = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") {
        const m = COMPONENT_REF.exec(v);
        if (!m) throw new DocumentError(`${source}: unsupported $ref ${v}: only #/components/schemas/<Name> refs are allowed`);
        out[k] = `#/$defs/${m[1]}`;
      } else {
        out[k] = rewriteRefs(v, source);
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

export function parseModel(text: string, source: string): ProtocolModel {
  let raw: Schema;
  try {
    raw = JSON.parse(text) as Schema;
  } catch (err) {
    throw new DocumentError(`${source}: not JSON (${(err as Error).message})`);
  }
  return buildModel(raw, text, source);
}

export function buildModel(document: Schema, documentText: string, source: string): ProtocolModel {
  const fail = (msg: string): never => {
    throw new DocumentError(`${source}: ${msg}`);
  };
  const info = (document.info ?? fail("info is missing")) as Schema;
  const components = (document.components ?? {}) as Schema;
  const schemas = (components.schemas ?? fail("components.schemas is missing")) as Record<string, Schema>;
  const extensions = ((document["x-extensions"] ?? []) as Schema[]).map((e) => String(e.name));
  const types: Record<string, Schema> = {};
  const typeNames: string[] = [];
  for (const [name, schema] of Object.entries(schemas)) {
    types[name] = rewriteRefs(schema, source) as Schema;
    typeNames.push(name);
  }
  const componentNames = [...typeNames];
  const errors: RpcErrorModel[] = Object.entries((components.errors ?? {}) as Record<string, Schema>).map(([name, e]) => ({
    name,
    code: e.code as number,
    message: e.message as string,
    ...(e.data !== undefined ? { data: e.data } : {}),
  }));

  const methods: MethodModel[] = [];
  for (const raw of (document.methods ?? fail("methods is missing")) as Schema[]) {
    const name = raw.name as string;
    const direction = raw["x-direction"] as Direction;
    if (direction !== "hostToSidecar" && direction !== "sidecarToHost") fail(`method ${name} has no valid x-direction`);
    const notification = raw["x-notification"] === true;
    const paramsType = (raw["x-params-type"] as string | undefined) ?? `${pascalCase(name)}Params`;
    const properties: Schema = {};
    const required: string[] = [];
    for (const p of (raw.params ?? []) as Schema[]) {
      properties[p.name as string] = {
        ...(p.description !== undefined ? { description: p.description } : {}),
        ...(rewriteRefs(p.schema, source) as Schema),
        // An experimental param stays visible to generators and the breaking-change gate.
        ...(p["x-experimental"] === true ? { "x-experimental": true } : {}),
      };
      if (p.required === true) required.push(p.name as string);
    }
    const params: Schema = { description: `Params of \`${name}\`: ${raw.summary as string}`, type: "object", properties };
    if (required.length) params.required = required;
    // What the host sends is strict (typos never pass silently); what the sidecar sends may grow.
    if (direction === "hostToSidecar") params.additionalProperties = false;
    if (types[paramsType]) fail(`params type ${paramsType} of ${name} clashes with a type of that name`);
    types[paramsType] = params;
    typeNames.push(paramsType);

    let resultType: string | undefined;
    let result: Schema | undefined;
    const rawResult = raw.result as Schema | undefined;
    if (notification && rawResult) fail(`notification ${name} must not have a result`);
    if (!notification) {
      if (!rawResult) fail(`method ${name} has no result and is not marked x-notification`);
      const m = COMPONENT_REF.exec(String((rawResult!.schema as Schema | undefined)?.$ref ?? ""));
      if (!m) fail(`the result of ${name} must be a $ref to a component schema`);
      resultType = m![1];
      result = { ...refTo(resultType), ...(rawResult!["x-experimental"] === true ? { "x-experimental": true } : {}) };
    }

    const errorStage = raw["x-error-stage"] as string | undefined;
    if (direction === "hostToSidecar" && errorStage === undefined && extensions.includes("x-error-stage")) {
      fail(`method ${name} has no x-error-stage: say which ErrorStage its own errors (invalid params, unexpected failures) carry`);
    }
    if (errorStage !== undefined && !((types.ErrorStage?.enum ?? []) as string[]).includes(errorStage)) {
      fail(`method ${name}: x-error-stage ${JSON.stringify(errorStage)} is not an ErrorStage`);
    }
    const endsEventStream = raw["x-ends-event-stream"] === true;
    if (endsEventStream && !("sessionId" in properties)) fail(`method ${name} is x-ends-event-stream but has no sessionId param`);

    methods.push({
      name,
      summary: raw.summary as string,
      description: raw.description as string | undefined,
      direction,
      notification,
      paramStructure: (raw.paramStructure as string | undefined) ?? "either",
      experimental: raw["x-experimental"] === true,
      paramsType,
      params,
      resultType,
      result,
      errors: ((raw.errors ?? []) as Schema[]).map((e) => {
        const ref = typeof e.$ref === "string" ? ERROR_REF.exec(e.$ref) : null;
        return ref ? ref[1] : `${String(e.code)} ${String(e.message)}`;
      }),
      ...(errorStage !== undefined ? { errorStage } : {}),
      endsEventStream,
    });
  }

  return {
    source,
    document,
    documentText,
    protocol: String(document["x-protocol"] ?? info.title ?? ""),
    version: String(info.version ?? ""),
    info,
    extensions,
    methods,
    types,
    typeNames,
    componentNames,
    errors,
    errorCodes: readErrorCodes(types.ErrorCode, errors, fail),
  };
}

function readErrorCodes(errorCode: Schema | undefined, errors: RpcErrorModel[], fail: (msg: string) => never): ErrorCodeModel[] {
  const table = errorCode?.["x-error-codes"] as Record<string, Schema> | undefined;
  if (!table) return [];
  const values = (errorCode!.enum ?? []) as string[];
  const missing = values.filter((v) => !(v in table));
  if (missing.length) fail(`ErrorCode's x-error-codes has no entry for ${missing.join(", ")}`);
  const extra = Object.keys(table).filter((k) => !values.includes(k));
  if (extra.length) fail(`ErrorCode's x-error-codes names ${extra.join(", ")}, which ErrorCode does not list`);
  return values.map((code) => {
    const e = table[code];
    const rpc = errors.find((x) => x.name === e.rpcError) ?? fail(`x-error-codes: ${code} names ${String(e.rpcError)}, which components.errors does not have`);
    return { code, rpcError: rpc.name, rpcCode: rpc.code, message: String(e.message), retryable: e.retryable === true, endsSession: e.endsSession === true };
  });
}

/** Follows `$ref`s to the named schema. */
export function resolve(model: ProtocolModel, schema: Schema): { schema: Schema; name?: string } {
  let name: string | undefined;
  let s = schema;
  const seen = new Set<string>();
  for (;;) {
    const n = refName(s);
    if (!n) break;
    if (seen.has(n)) throw new DocumentError(`${model.source}: $ref cycle through ${n}`);
    seen.add(n);
    const target = model.types[n];
    if (!target) throw new DocumentError(`${model.source}: $ref to unknown type ${n}`);
    name ??= n;
    s = target;
  }
  return { schema: s, name };
}

export const methodNamed = (model: ProtocolModel, name: string): MethodModel | undefined => model.methods.find((m) => m.name === name);

/** The component types the errors' `data` carries. */
export function errorDataTypes(model: ProtocolModel): string[] {
  const out = new Set<string>();
  // x-error-data names it; components.errors describe it in prose ("ErrorData with code …").
  const declared = refName(rewriteRefs(model.document["x-error-data"], model.source) as Schema | undefined);
  if (declared && model.componentNames.includes(declared)) out.add(declared);
  for (const e of model.errors) {
    const first = typeof e.data === "string" ? /^([A-Z][A-Za-z0-9]*)\b/.exec(e.data)?.[1] : undefined;
    if (first && model.componentNames.includes(first)) out.add(first);
  }
  return [...out];
}

/** One JSON Schema (2020-12) holding every named type under `$defs`. */
export function bundleSchema(model: ProtocolModel, id = "a4aa.v1"): Schema {
  const defs: Schema = {};
  for (const name of model.typeNames) defs[name] = model.types[name];
  return { $schema: "https://json-schema.org/draft/2020-12/schema", $id: id, $defs: defs };
}
