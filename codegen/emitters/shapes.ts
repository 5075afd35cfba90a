// The protocol's types as the Go and Python emitters need them: every named schema turned
// into one of five shapes (object, enum, alias, tagged union, untagged union), with `allOf`
// flattened, inline enums and objects given names, and the open/closed and
// host-bound/sidecar-bound facts worked out once. Throws on a schema construct it cannot map,
// so a schema change never turns into silently wrong client code.
import type { JsonSchema, ProtocolModel } from "../model.js";

export type TypeRef =
  | { kind: "string"; minLength?: number }
  | { kind: "integer"; minimum?: number; maximum?: number }
  | { kind: "number"; minimum?: number; maximum?: number }
  | { kind: "boolean" }
  /** Any JSON value (JsonValue). */
  | { kind: "any" }
  /** Any JSON object (JsonObject). */
  | { kind: "anyObject" }
  | { kind: "named"; name: string }
  | { kind: "array"; items: TypeRef }
  | { kind: "map"; values: TypeRef }
  | { kind: "nullable"; inner: TypeRef };

export interface Field {
  wire: string;
  type: TypeRef;
  required: boolean;
  description?: string;
  /** `x-empty-means-absent` (optional strings): "" says the same as leaving it out, so a Go field needs no pointer. */
  emptyIsAbsent?: boolean;
  /** A boolean's schema `default`: what an absent field means (Python fills it in). */
  default?: boolean;
}

export interface ConstField {
  wire: string;
  value: string | number | boolean;
}

export interface ObjectDecl {
  kind: "object";
  name: string;
  description?: string;
  fields: Field[];
  consts: ConstField[];
  /** Unknown fields are rejected (additionalProperties / unevaluatedProperties false). */
  closed: boolean;
}
export interface EnumDecl {
  kind: "enum";
  name: string;
  description?: string;
  values: string[];
  /** `x-open`: a later minor version may add values; decoders accept any string. */
  open: boolean;
}
export interface AliasDecl {
  kind: "alias";
  name: string;
  description?: string;
  target: TypeRef;
}
export interface TaggedUnionDecl {
  kind: "taggedUnion";
  name: string;
  description?: string;
  tag: string;
  variants: { tag: string; type: string }[];
  /** Decoding keeps an unknown tag as an `Unknown<Name>` value (sidecar-sent unions: hosts ignore what they do not know). */
  open: boolean;
}
export interface UntaggedUnionDecl {
  kind: "untaggedUnion";
  name: string;
  description?: string;
  /** Tried in order; each is a named type or a primitive. */
  variants: TypeRef[];
}
export type Decl = ObjectDecl | EnumDecl | AliasDecl | TaggedUnionDecl | UntaggedUnionDecl;

export interface Shapes {
  decls: Decl[];
  byName: Map<string, Decl>;
  /** For each object type: the unions it is a variant of. */
  unionsOf: Map<string, string[]>;
}

const IGNORED = new Set(["description", "title", "examples", "default", "x-experimental", "$comment", "format", "pattern", "maxLength", "deprecated"]);

function refName(s: JsonSchema): string | undefined {
  const ref = s.$ref as string | undefined;
  if (!ref) return undefined;
  const m = /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref);
  if (!m) throw new Error(`shapes: unsupported $ref ${ref}`);
  return m[1];
}

function pascal(s: string): string {
  return s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join("");
}

export function buildShapes(model: ProtocolModel): Shapes {
  const decls: Decl[] = [];
  const byName = new Map<string, Decl>();
  const add = (d: Decl) => {
    if (byName.has(d.name)) throw new Error(`shapes: two types named ${d.name}`);
    byName.set(d.name, d);
    decls.push(d);
  };

  const checkKeys = (where: string, s: JsonSchema, allowed: string[]) => {
    for (const k of Object.keys(s)) {
      if (IGNORED.has(k) || allowed.includes(k)) continue;
      throw new Error(`shapes: ${where}: schema keyword ${JSON.stringify(k)} is not supported by the Go/Python emitters`);
    }
  };

  // A property's type; inline enums and objects become named declarations `${owner}${Prop}`.
  const typeOf = (s: JsonSchema, owner: string, where: string): TypeRef => {
    const ref = refName(s);
    if (ref) {
      checkKeys(where, s, ["$ref"]);
      return resolveNamed(ref);
    }
    if (Array.isArray(s.oneOf)) {
      const branches = s.oneOf as JsonSchema[];
      const nonNull = branches.filter((b) => b.type !== "null");
      if (nonNull.length === 1 && branches.length === 2) {
        checkKeys(where, s, ["oneOf"]);
        return { kind: "nullable", inner: typeOf(nonNull[0], owner, where) };
      }
      throw new Error(`shapes: ${where}: an inline oneOf must be [X, null]; give the union a name`);
    }
    if (s.enum) {
      checkKeys(where, s, ["type", "enum", "x-open", "x-error-codes", "x-preset-rules", "x-session-process"]);
      const values = s.enum as unknown[];
      if (!values.every((v) => typeof v === "string")) throw new Error(`shapes: ${where}: only string enums are supported`);
      add({ kind: "enum", name: owner, description: s.description as string | undefined, values: values as string[], open: s["x-open"] === true });
      return { kind: "named", name: owner };
    }
    const t = s.type;
    if (Array.isArray(t)) {
      const rest = t.filter((x) => x !== "null");
      if (rest.length === 1 && t.length === 2) return { kind: "nullable", inner: typeOf({ ...s, type: rest[0] }, owner, where) };
      if (rest.length >= 5) return { kind: "any" };
      throw new Error(`shapes: ${where}: type ${JSON.stringify(t)} is not supported`);
    }
    switch (t) {
      case "string":
        checkKeys(where, s, ["type", "minLength", "x-empty-means-absent"]);
        return s.minLength !== undefined ? { kind: "string", minLength: s.minLength as number } : { kind: "string" };
      case "integer":
      case "number": {
        checkKeys(where, s, ["type", "minimum", "maximum"]);
        const r: { kind: "integer" | "number"; minimum?: number; maximum?: number } = { kind: t };
        if (s.minimum !== undefined) r.minimum = s.minimum as number;
        if (s.maximum !== undefined) r.maximum = s.maximum as number;
        return r;
      }
      case "boolean":
        checkKeys(where, s, ["type"]);
        return { kind: "boolean" };
      case "array":
        checkKeys(where, s, ["type", "items"]);
        return { kind: "array", items: typeOf(s.items as JsonSchema, `${owner}Item`, `${where}.items`) };
      case "object": {
        if (s.properties || s.allOf) {
          objectDecl(owner, s, where);
          return { kind: "named", name: owner };
        }
        checkKeys(where, s, ["type", "additionalProperties", "tsType"]);
        const ap = s.additionalProperties;
        if (ap && typeof ap === "object") return { kind: "map", values: typeOf(ap as JsonSchema, `${owner}Value`, `${where}.*`) };
        return { kind: "anyObject" };
      }
      default:
        throw new Error(`shapes: ${where}: cannot map ${JSON.stringify(s).slice(0, 120)}`);
    }
  };

  // Properties of an object, with allOf parts flattened in (their fields first).
  const collect = (name: string, s: JsonSchema, where: string, into: { fields: Field[]; consts: ConstField[] }) => {
    for (const part of (s.allOf as JsonSchema[] | undefined) ?? []) {
      const base = refName(part);
      const baseSchema = base ? model.types[base] : part;
      if (!baseSchema) throw new Error(`shapes: ${where}: allOf part ${base} is unknown`);
      collect(name, baseSchema, `${where}.allOf`, into);
    }
    const required = new Set((s.required as string[] | undefined) ?? []);
    for (const [wire, ps] of Object.entries((s.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      const existing = into.fields.findIndex((f) => f.wire === wire);
      if (existing >= 0) into.fields.splice(existing, 1);
      if (ps.const !== undefined) {
        if (!required.has(wire)) throw new Error(`shapes: ${where}.${wire}: a const property must be required`);
        into.consts.push({ wire, value: ps.const as string | number | boolean });
        continue;
      }
      into.fields.push({
        wire,
        type: typeOf(ps, `${name}${pascal(wire)}`, `${where}.${wire}`),
        required: required.has(wire),
        description: ps.description as string | undefined,
        ...(ps["x-empty-means-absent"] === true ? { emptyIsAbsent: true } : {}),
        ...(typeof ps.default === "boolean" && !required.has(wire) ? { default: ps.default } : {}),
      });
    }
    // `required` of an outer schema can name a property of an allOf part.
    for (const f of into.fields) if (required.has(f.wire)) f.required = true;
  };

  const objectDecl = (name: string, s: JsonSchema, where: string) => {
    checkKeys(where, s, ["type", "properties", "required", "additionalProperties", "unevaluatedProperties", "allOf"]);
    const into = { fields: [] as Field[], consts: [] as ConstField[] };
    collect(name, s, where, into);
    const closed = s.additionalProperties === false || s.unevaluatedProperties === false;
    add({ kind: "object", name, description: s.description as string | undefined, fields: into.fields, consts: into.consts, closed });
  };

  const resolving = new Set<string>();
  // A reference to a component: declare it (once) and refer to it by name.
  const resolveNamed = (name: string): TypeRef => {
    if (!byName.has(name) && !resolving.has(name)) declare(name);
    return { kind: "named", name };
  };

  const declare = (name: string) => {
    const s = model.types[name];
    if (!s) throw new Error(`shapes: unknown type ${name}`);
    resolving.add(name);
    const where = name;
    const description = s.description as string | undefined;
    if (s.tsType !== undefined) {
      // JsonValue / JsonObject: any JSON (object).
      add({ kind: "alias", name, description, target: s.type === "object" ? { kind: "anyObject" } : { kind: "any" } });
    } else if (Array.isArray(s.oneOf) && s.discriminator) {
      checkKeys(where, s, ["type", "discriminator", "oneOf", "x-open"]);
      const tag = (s.discriminator as JsonSchema).propertyName as string;
      const variants = (s.oneOf as JsonSchema[]).map((b) => {
        const v = refName(b);
        if (!v) throw new Error(`shapes: ${where}: tagged union branches must be $refs`);
        resolveNamed(v);
        const d = byName.get(v);
        const c = d && d.kind === "object" ? d.consts.find((x) => x.wire === tag) : undefined;
        if (!c || typeof c.value !== "string") throw new Error(`shapes: ${where}: ${v} has no string const ${tag}`);
        return { tag: c.value, type: v };
      });
      add({ kind: "taggedUnion", name, description, tag, variants, open: s["x-open"] === true });
    } else if (Array.isArray(s.oneOf)) {
      const branches = s.oneOf as JsonSchema[];
      if (branches.length === 2 && branches.some((b) => b.type === "null")) {
        add({ kind: "alias", name, description, target: typeOf(s, name, where) });
      } else {
        checkKeys(where, s, ["oneOf"]);
        const variants = branches.map((b, i) => typeOf(b, `${name}${i}`, `${where}.oneOf[${i}]`));
        for (const v of variants) {
          if (v.kind === "named") {
            if (byName.get(v.name)?.kind !== "object") throw new Error(`shapes: ${where}: untagged union branch ${v.name} must be an object type`);
          } else if (!["string", "integer", "number", "boolean"].includes(v.kind)) {
            throw new Error(`shapes: ${where}: untagged union branches must be object types or primitives`);
          }
        }
        add({ kind: "untaggedUnion", name, description, variants });
      }
    } else if (s.enum) {
      typeOf(s, name, where);
    } else if (s.type === "object" && (s.properties || s.allOf)) {
      objectDecl(name, s, where);
    } else {
      add({ kind: "alias", name, description, target: typeOf(s, name, where) });
    }
    resolving.delete(name);
  };

  for (const name of model.typeNames) if (!byName.has(name)) declare(name);

  // Unions reachable from what the sidecar sends are open: a newer sidecar may add variants.
  const sidecarSent = new Set<string>();
  const hostSent = new Set<string>();
  const visit = (name: string, into: Set<string>) => {
    if (into.has(name)) return;
    into.add(name);
    const d = byName.get(name);
    if (!d) return;
    const refs: TypeRef[] =
      d.kind === "object" ? d.fields.map((f) => f.type) : d.kind === "alias" ? [d.target] : d.kind === "untaggedUnion" ? d.variants : [];
    if (d.kind === "taggedUnion") for (const v of d.variants) visit(v.type, into);
    for (const r of refs) for (const n of namesIn(r)) visit(n, into);
  };
  for (const m of model.methods) {
    if (m.direction === "sidecarToHost") visit(m.paramsType, sidecarSent);
    else {
      visit(m.paramsType, hostSent);
      if (m.resultType) visit(m.resultType, sidecarSent);
    }
  }
  for (const d of decls) if (d.kind === "taggedUnion" && sidecarSent.has(d.name) && !hostSent.has(d.name)) d.open = true;

  const unionsOf = new Map<string, string[]>();
  for (const d of decls) {
    const members = d.kind === "taggedUnion" ? d.variants.map((v) => v.type) : d.kind === "untaggedUnion" ? d.variants.flatMap(namesIn) : [];
    for (const m of members) unionsOf.set(m, [...(unionsOf.get(m) ?? []), d.name]);
  }
  return { decls, byName, unionsOf };
}

export function namesIn(t: TypeRef): string[] {
  switch (t.kind) {
    case "named":
      return [t.name];
    case "array":
      return namesIn(t.items);
    case "map":
      return namesIn(t.values);
    case "nullable":
      return namesIn(t.inner);
    default:
      return [];
  }
}

/** camelCase / PascalCase → words, e.g. `toolCallId` → [tool, call, id]. */
export function words(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

export function snakeCase(s: string): string {
  return words(s).join("_");
}

/** Wraps text as comment lines of at most ~100 columns. */
export function commentLines(text: string | undefined, prefix: string): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (const para of text.split("\n")) {
    let line = "";
    for (const w of para.split(/\s+/).filter(Boolean)) {
      if (line && line.length + w.length + 1 > 96) {
        out.push(prefix + line);
        line = w;
      } else line = line ? `${line} ${w}` : w;
    }
    out.push(line ? prefix + line : prefix.trimEnd());
  }
  return out;
}
