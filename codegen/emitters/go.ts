// Go types and typed method stubs for clients/go, written from the ProtocolModel (not
// quicktype: it flattens unions of objects into one struct). Objects are structs with
// generated MarshalJSON/UnmarshalJSON (wire names, consts, required and unknown fields
// checked, unknown fields of open objects kept in Extra); tagged and untagged unions are
// interfaces a host can type-switch on. The output is gofmt-clean and deterministic.
import type { ProtocolModel } from "../model.js";
import { pascalCase } from "../model.js";
import { header, type Emitter } from "../emitter.js";
import { buildShapes, commentLines, words, type Decl, type Field, type ObjectDecl, type Shapes, type TypeRef } from "./shapes.js";

const INITIALISMS = new Set(["id", "url", "uri", "api", "json", "http", "usd", "acp", "rpc", "cli", "pty", "mcp", "ui", "utf8"]);

export function goName(wire: string): string {
  return words(wire)
    .map((w) => (INITIALISMS.has(w) ? w.toUpperCase() : w[0].toUpperCase() + w.slice(1)))
    .join("");
}

const lit = (s: string) => JSON.stringify(s);
const MIN_INT = "-9223372036854775808";
const MAX_INT = "9223372036854775807";

class GoWriter {
  constructor(private readonly shapes: Shapes) {}

  decl(name: string): Decl {
    const d = this.shapes.byName.get(name);
    if (!d) throw new Error(`go: unknown type ${name}`);
    return d;
  }

  /** Types that can say "absent" by being nil, so an optional field needs no pointer. */
  nilable(t: TypeRef): boolean {
    switch (t.kind) {
      case "array":
      case "map":
      case "any":
      case "anyObject":
      case "nullable":
        return true;
      case "named": {
        const d = this.decl(t.name);
        if (d.kind === "taggedUnion" || d.kind === "untaggedUnion") return true;
        if (d.kind === "alias") return this.nilable(d.target);
        return false;
      }
      default:
        return false;
    }
  }

  type(t: TypeRef): string {
    switch (t.kind) {
      case "string":
        return "string";
      case "integer":
        return "int64";
      case "number":
        return "float64";
      case "boolean":
        return "bool";
      case "any":
        return "json.RawMessage";
      case "anyObject":
        return "map[string]json.RawMessage";
      case "named":
        return t.name;
      case "array":
        return `[]${this.type(t.items)}`;
      case "map":
        return `map[string]${this.type(t.values)}`;
      case "nullable":
        return this.nilable(t.inner) ? this.type(t.inner) : `*${this.type(t.inner)}`;
    }
  }

  fieldType(f: Field): string {
    const base = this.type(f.type);
    return f.required || f.emptyIsAbsent || this.nilable(f.type) ? base : `*${base}`;
  }

  /** An expression of type func(json.RawMessage) (T, error). */
  decoder(t: TypeRef): string {
    switch (t.kind) {
      case "string":
        return t.minLength !== undefined ? `decStringMin(${t.minLength})` : "decString";
      case "integer":
        if (t.minimum === undefined && t.maximum === undefined) return "decInt";
        if (t.maximum === undefined) return `decIntMin(${t.minimum})`;
        return `decIntRange(${t.minimum ?? MIN_INT}, ${t.maximum ?? MAX_INT})`;
      case "number":
        if (t.minimum === undefined && t.maximum === undefined) return "decFloat";
        if (t.maximum === undefined) return `decFloatMin(${t.minimum})`;
        return `decFloatRange(${t.minimum ?? "-1.7976931348623157e308"}, ${t.maximum})`;
      case "boolean":
        return "decBool";
      case "any":
        return "decAny";
      case "anyObject":
        return "decAnyObject";
      case "named":
        return `decode${t.name}`;
      case "array":
        return `sliceOf(${this.decoder(t.items)})`;
      case "map":
        return `mapOf(${this.decoder(t.values)})`;
      case "nullable":
        return this.nilable(t.inner) ? `nullOr(${this.decoder(t.inner)})` : `nullableOf(${this.decoder(t.inner)})`;
    }
  }

  fieldDecoder(f: Field): string {
    const d = this.decoder(f.type);
    return f.required || f.emptyIsAbsent || this.nilable(f.type) ? d : `ptrOf(${d})`;
  }

  /** Encoded value of a required field: nil slices and maps go out as [] and {}. */
  requiredValue(f: Field, expr: string): string {
    const t = f.type.kind === "named" ? this.resolveAlias(f.type) : f.type;
    if (t.kind === "array") return `orEmptySlice(${expr})`;
    if (t.kind === "map" || t.kind === "anyObject") return `orEmptyMap(${expr})`;
    return expr;
  }

  resolveAlias(t: TypeRef): TypeRef {
    while (t.kind === "named") {
      const d = this.decl(t.name);
      if (d.kind !== "alias") return t;
      t = d.target;
    }
    return t;
  }
}

function extraName(d: ObjectDecl): string {
  return d.fields.some((f) => goName(f.wire) === "Extra") ? "ExtraFields" : "Extra";
}

function emitObject(w: GoWriter, d: ObjectDecl, unions: string[], out: string[]): void {
  const names = new Set<string>();
  for (const f of d.fields) {
    const n = goName(f.wire);
    if (names.has(n)) throw new Error(`go: ${d.name}: two fields named ${n}`);
    names.add(n);
  }
  for (const c of d.consts) if (names.has(goName(c.wire))) throw new Error(`go: ${d.name}: const ${c.wire} clashes with a field`);
  out.push(...commentLines(`${d.name}: ${d.description ?? ""}`.trim(), "// "));
  if (d.consts.length) {
    out.push(...commentLines(`Its ${d.consts.map((c) => `\`${c.wire}\``).join(", ")} is fixed and written by MarshalJSON.`, "// "));
  }
  if (!d.fields.length && d.closed) {
    out.push(`type ${d.name} struct{}`);
  } else {
    out.push(`type ${d.name} struct {`);
    d.fields.forEach((f, i) => {
      if (i) out.push("");
      out.push(...commentLines(f.description, "\t// "));
      const omit = f.required ? "" : ",omitempty";
      out.push(`\t${goName(f.wire)} ${w.fieldType(f)} \`json:"${f.wire}${omit}"\``);
    });
    if (!d.closed) {
      if (d.fields.length) out.push("");
      out.push("\t// Fields this client does not know, kept as received and written back by MarshalJSON.");
      out.push(`\t${extraName(d)} map[string]json.RawMessage \`json:"-"\``);
    }
    out.push("}");
  }
  out.push("");
  for (const c of d.consts) {
    const gt = typeof c.value === "string" ? "string" : typeof c.value === "boolean" ? "bool" : "float64";
    out.push(`// ${goName(c.wire)} is always ${JSON.stringify(c.value)}.`);
    out.push(`func (${d.name}) ${goName(c.wire)}() ${gt} { return ${JSON.stringify(c.value)} }`);
    out.push("");
  }
  for (const u of unions) {
    out.push(`func (${d.name}) is${u}() {}`);
    out.push("");
  }
  // Decoding.
  const known = [...d.consts.map((c) => c.wire), ...d.fields.map((f) => f.wire)];
  out.push(`func decode${d.name}(raw json.RawMessage) (${d.name}, error) {`);
  out.push(`\tm, err := objectOf(raw, ${lit(d.name)})`);
  out.push("\tif err != nil {");
  out.push(`\t\treturn ${d.name}{}, err`);
  out.push("\t}");
  out.push(`\treturn decode${d.name}Fields(m)`);
  out.push("}");
  out.push("");
  out.push(`func decode${d.name}Fields(m map[string]json.RawMessage) (${d.name}, error) {`);
  out.push(`\tvar v ${d.name}`);
  if (d.fields.length) out.push("\tvar err error");
  for (const c of d.consts) {
    const fn = typeof c.value === "string" ? "checkConstString" : typeof c.value === "boolean" ? "checkConstBool" : null;
    if (!fn) throw new Error(`go: ${d.name}.${c.wire}: only string and boolean consts are supported`);
    out.push(`\tif err := ${fn}(m, ${lit(d.name)}, ${lit(c.wire)}, ${JSON.stringify(c.value)}); err != nil {`);
    out.push("\t\treturn v, err");
    out.push("\t}");
  }
  for (const f of d.fields) {
    out.push(`\tif raw, ok := m[${lit(f.wire)}]; ok {`);
    out.push(`\t\tif v.${goName(f.wire)}, err = ${w.fieldDecoder(f)}(raw); err != nil {`);
    out.push(`\t\t\treturn v, fieldError(${lit(d.name)}, ${lit(f.wire)}, err)`);
    out.push("\t\t}");
    if (f.required) {
      out.push("\t} else {");
      out.push(`\t\treturn v, missingField(${lit(d.name)}, ${lit(f.wire)})`);
    }
    out.push("\t}");
  }
  const knownArgs = known.length ? `, ${known.map(lit).join(", ")}` : "";
  if (d.closed) {
    out.push(`\tif err := rejectUnknown(m, ${lit(d.name)}${knownArgs}); err != nil {`);
    out.push("\t\treturn v, err");
    out.push("\t}");
  } else {
    out.push(`\tv.${extraName(d)} = extraFields(m${knownArgs})`);
  }
  out.push("\treturn v, nil");
  out.push("}");
  out.push("");
  emitUnmarshal(d.name, `// UnmarshalJSON decodes ${d.name} strictly: required fields, types, consts${d.closed ? " and unknown fields" : ""} are checked.`, out);
  // Encoding.
  out.push(`// MarshalJSON writes the wire names${d.consts.length ? " and the fixed fields" : ""}; absent optional fields are left out.`);
  out.push(`func (v ${d.name}) MarshalJSON() ([]byte, error) {`);
  out.push("\tvar w objWriter");
  for (const c of d.consts) out.push(`\tw.field(${lit(c.wire)}, ${JSON.stringify(c.value)})`);
  for (const f of d.fields) {
    const expr = `v.${goName(f.wire)}`;
    if (f.required) out.push(`\tw.field(${lit(f.wire)}, ${w.requiredValue(f, expr)})`);
    else {
      out.push(f.emptyIsAbsent ? `\tif ${expr} != "" {` : `\tif ${expr} != nil {`);
      out.push(`\t\tw.field(${lit(f.wire)}, ${expr})`);
      out.push("\t}");
    }
  }
  if (!d.closed) out.push(`\tw.extra(v.${extraName(d)})`);
  out.push("\treturn w.bytes()");
  out.push("}");
  out.push("");
}

function enumConst(type: string, value: string): string {
  const suffix = words(value)
    .map((x) => x[0].toUpperCase() + x.slice(1))
    .join("");
  return `${type}${suffix}`;
}

function emitDecl(w: GoWriter, shapes: Shapes, d: Decl, out: string[]): void {
  switch (d.kind) {
    case "object":
      emitObject(w, d, shapes.unionsOf.get(d.name) ?? [], out);
      return;
    case "enum": {
      out.push(...commentLines(`${d.name}: ${d.description ?? "one of a fixed set of strings."}`, "// "));
      out.push(`type ${d.name} string`);
      out.push("");
      const seen = new Set<string>();
      for (const v of d.values) {
        const c = enumConst(d.name, v);
        if (seen.has(c)) throw new Error(`go: enum ${d.name}: two values map to ${c}`);
        seen.add(c);
        out.push(`const ${c} ${d.name} = ${lit(v)}`);
      }
      out.push("");
      out.push(`// Valid reports whether v is one of the values the schema lists.`);
      out.push(`func (v ${d.name}) Valid() bool {`);
      out.push("\tswitch v {");
      out.push(`\tcase ${d.values.map((v) => enumConst(d.name, v)).join(", ")}:`);
      out.push("\t\treturn true");
      out.push("\t}");
      out.push("\treturn false");
      out.push("}");
      out.push("");
      out.push(`func decode${d.name}(raw json.RawMessage) (${d.name}, error) {`);
      out.push("\ts, err := decString(raw)");
      out.push("\tif err != nil {");
      out.push('\t\treturn "", err');
      out.push("\t}");
      // An open enum (x-open) may gain values in a minor version: any string decodes.
      if (!d.open) {
        out.push(`\tif !${d.name}(s).Valid() {`);
        out.push(`\t\treturn "", enumError(${lit(d.name)}, s)`);
        out.push("\t}");
      }
      out.push(`\treturn ${d.name}(s), nil`);
      out.push("}");
      out.push("");
      emitUnmarshal(
        d.name,
        d.open
          ? `// UnmarshalJSON accepts the values the schema lists and, the enum being open, any other string (see Valid).`
          : `// UnmarshalJSON accepts only the values the schema lists.`,
        out,
      );
      return;
    }
    case "alias":
      out.push(...commentLines(`${d.name}: ${d.description ?? ""}`.trim(), "// "));
      out.push(`type ${d.name} = ${w.type(d.target)}`);
      out.push("");
      out.push(`func decode${d.name}(raw json.RawMessage) (${d.name}, error) {`);
      out.push(`\treturn ${w.decoder(d.target)}(raw)`);
      out.push("}");
      out.push("");
      return;
    case "taggedUnion": {
      const tagMethod = goName(d.tag);
      out.push(...commentLines(`${d.name}: ${d.description ?? ""}`.trim(), "// "));
      out.push(
        ...commentLines(
          `One of ${d.variants.map((v) => v.type).join(", ")}${d.open ? `, or Unknown${d.name} for a \`${d.tag}\` this client does not know` : ""}. Switch on the concrete type.`,
          "// ",
        ),
      );
      out.push(`type ${d.name} interface {`);
      out.push(`\t// ${tagMethod} is the \`${d.tag}\` tag.`);
      out.push(`\t${tagMethod}() string`);
      out.push(`\tis${d.name}()`);
      out.push("}");
      out.push("");
      if (d.open) {
        out.push(`// Unknown${d.name} is a ${d.name} whose \`${d.tag}\` this client does not know; Raw is the object as received.`);
        out.push(`type Unknown${d.name} struct {`);
        out.push("\tTag string");
        out.push("");
        out.push("\tRaw json.RawMessage");
        out.push("}");
        out.push("");
        out.push(`// ${tagMethod} is the tag as received.`);
        out.push(`func (v Unknown${d.name}) ${tagMethod}() string { return v.Tag }`);
        out.push("");
        out.push(`func (Unknown${d.name}) is${d.name}() {}`);
        out.push("");
        out.push("// MarshalJSON writes the object as it was received.");
        out.push(`func (v Unknown${d.name}) MarshalJSON() ([]byte, error) { return v.Raw, nil }`);
        out.push("");
      }
      out.push(`func decode${d.name}(raw json.RawMessage) (${d.name}, error) {`);
      out.push(`\tm, err := objectOf(raw, ${lit(d.name)})`);
      out.push("\tif err != nil {");
      out.push("\t\treturn nil, err");
      out.push("\t}");
      out.push(`\ttag, err := tagOf(m, ${lit(d.name)}, ${lit(d.tag)})`);
      out.push("\tif err != nil {");
      out.push("\t\treturn nil, err");
      out.push("\t}");
      out.push("\tswitch tag {");
      for (const v of d.variants) {
        out.push(`\tcase ${lit(v.tag)}:`);
        out.push(`\t\tv, err := decode${v.type}Fields(m)`);
        out.push("\t\tif err != nil {");
        out.push("\t\t\treturn nil, err");
        out.push("\t\t}");
        out.push("\t\treturn v, nil");
      }
      out.push("\t}");
      if (d.open) out.push(`\treturn Unknown${d.name}{Tag: tag, Raw: append(json.RawMessage(nil), raw...)}, nil`);
      else out.push(`\treturn nil, unknownTag(${lit(d.name)}, ${lit(d.tag)}, tag)`);
      out.push("}");
      out.push("");
      emitUnionDecodeExport(d.name, out);
      return;
    }
    case "untaggedUnion": {
      const names = d.variants.map((v) => (v.kind === "named" ? v.name : `${d.name}${goName(v.kind)}`));
      out.push(...commentLines(`${d.name}: ${d.description ?? ""}`.trim(), "// "));
      out.push(...commentLines(`One of ${names.join(", ")}. Switch on the concrete type.`, "// "));
      out.push(`type ${d.name} interface {`);
      out.push(`\tis${d.name}()`);
      out.push("}");
      out.push("");
      d.variants.forEach((v, i) => {
        if (v.kind === "named") return;
        out.push(`// ${names[i]} is the ${v.kind} branch of ${d.name}.`);
        out.push(`type ${names[i]} ${w.type(v)}`);
        out.push("");
        out.push(`func (${names[i]}) is${d.name}() {}`);
        out.push("");
      });
      out.push(`func decode${d.name}(raw json.RawMessage) (${d.name}, error) {`);
      d.variants.forEach((v, i) => {
        out.push(`\tif v, err := ${w.decoder(v)}(raw); err == nil {`);
        out.push(`\t\treturn ${v.kind === "named" ? "v" : `${names[i]}(v)`}, nil`);
        out.push("\t}");
      });
      out.push(`\treturn nil, noBranch(${lit(d.name)}, raw)`);
      out.push("}");
      out.push("");
      emitUnionDecodeExport(d.name, out);
      return;
    }
  }
}

/** The UnmarshalJSON of a named type: its decoder's checks, then assignment. */
function emitUnmarshal(name: string, comment: string, out: string[]): void {
  out.push(comment);
  out.push(`func (v *${name}) UnmarshalJSON(data []byte) error {`);
  out.push(`\tr, err := decode${name}(data)`);
  out.push("\tif err != nil {");
  out.push("\t\treturn err");
  out.push("\t}");
  out.push("\t*v = r");
  out.push("\treturn nil");
  out.push("}");
  out.push("");
}

function emitUnionDecodeExport(name: string, out: string[]): void {
  out.push(`// Decode${name} decodes one ${name} from JSON (a union has no UnmarshalJSON of its own).`);
  out.push(`func Decode${name}(data []byte) (${name}, error) {`);
  out.push(`\treturn decode${name}(data)`);
  out.push("}");
  out.push("");
}

export function goTypes(model: ProtocolModel, shapes = buildShapes(model)): string {
  const w = new GoWriter(shapes);
  const out: string[] = [];
  out.push(header(model, "//").trimEnd());
  out.push("");
  out.push("package a4aa");
  out.push("");
  out.push('import "encoding/json"');
  out.push("");
  out.push(`// Protocol is the protocol these types were generated for.`);
  out.push(`const Protocol = ${lit(model.protocol)}`);
  out.push("");
  out.push(`// SchemaVersion is the version of ${model.source} these types were generated from.`);
  out.push(`const SchemaVersion = ${lit(model.version)}`);
  out.push("");
  for (const d of shapes.decls) emitDecl(w, shapes, d, out);
  // Decoding by name, for tools and the shared examples test.
  out.push("// DecodeByTypeName decodes data as the schema type called name (e.g. \"AgentEvent\").");
  out.push("func DecodeByTypeName(name string, data []byte) (any, error) {");
  out.push("\tswitch name {");
  for (const name of model.typeNames) {
    out.push(`\tcase ${lit(name)}:`);
    out.push(`\t\treturn decode${name}(data)`);
  }
  out.push("\t}");
  out.push("\treturn nil, unknownType(name)");
  out.push("}");
  return out.join("\n").trimEnd() + "\n";
}

export function goMethods(model: ProtocolModel, shapes = buildShapes(model)): string {
  const out: string[] = [];
  out.push(header(model, "//").trimEnd());
  out.push("");
  out.push("package a4aa");
  out.push("");
  out.push("import (");
  out.push('\t"context"');
  out.push('\t"encoding/json"');
  out.push(")");
  out.push("");
  for (const m of model.methods.filter((x) => x.direction === "hostToSidecar")) {
    if (m.notification) throw new Error(`go: host → sidecar notification ${m.name} is not supported yet`);
    const name = pascalCase(m.name);
    const res = m.resultType!;
    const isObject = shapes.byName.get(res)?.kind === "object";
    const rt = isObject ? `*${res}` : res;
    out.push(...commentLines(`${name} calls \`${m.name}\`: ${m.summary}`, "// "));
    if (m.experimental) out.push("// Experimental: may change in any minor version.");
    out.push(`func (c *Client) ${name}(ctx context.Context, params ${m.paramsType}) (${rt}, error) {`);
    out.push(`\traw, err := c.request(ctx, ${lit(m.name)}, params)`);
    out.push("\tif err != nil {");
    out.push("\t\treturn nil, err");
    out.push("\t}");
    out.push(`\tres, err := decode${res}(raw)`);
    out.push("\tif err != nil {");
    out.push(`\t\treturn nil, resultError(${lit(m.name)}, err)`);
    out.push("\t}");
    out.push(isObject ? "\treturn &res, nil" : "\treturn res, nil");
    out.push("}");
    out.push("");
  }
  const incoming = model.methods.filter((x) => x.direction === "sidecarToHost");
  out.push("// SidecarHandler receives every message the sidecar sends, decoded. The client's router");
  out.push("// implements it; a new sidecar → host method in the schema makes that router fail to");
  out.push("// compile until it is handled.");
  out.push("type SidecarHandler interface {");
  incoming.forEach((m, i) => {
    if (i) out.push("");
    const name = pascalCase(m.name);
    out.push(...commentLines(`${name} handles \`${m.name}\`${m.notification ? " (a notification)" : ""}: ${m.summary}`, "\t// "));
    if (m.notification) out.push(`\t${name}(params ${m.paramsType})`);
    else out.push(`\t${name}(ctx context.Context, params ${m.paramsType}) (${m.resultType}, error)`);
  });
  out.push("}");
  out.push("");
  out.push("// dispatchSidecar decodes one sidecar → host message and hands it to h. known is false for");
  out.push("// a method the schema does not have; err is a params decoding error or the handler's.");
  out.push("func dispatchSidecar(ctx context.Context, h SidecarHandler, method string, params json.RawMessage) (result any, known bool, err error) {");
  out.push("\tswitch method {");
  for (const m of incoming) {
    out.push(`\tcase ${lit(m.name)}:`);
    out.push(`\t\tp, err := decode${m.paramsType}(params)`);
    out.push("\t\tif err != nil {");
    out.push("\t\t\treturn nil, true, &paramsError{err}");
    out.push("\t\t}");
    if (m.notification) {
      out.push(`\t\th.${pascalCase(m.name)}(p)`);
      out.push("\t\treturn nil, true, nil");
    } else {
      out.push(`\t\tr, err := h.${pascalCase(m.name)}(ctx, p)`);
      out.push("\t\treturn r, true, err");
    }
  }
  out.push("\t}");
  out.push("\treturn nil, false, nil");
  out.push("}");
  out.push("");
  out.push("// endedEventStream names the session whose event stream a successful call of method with");
  out.push("// params ends (x-ends-event-stream), if any.");
  out.push("func endedEventStream(method string, params any) (sessionID string, ok bool) {");
  out.push("\tswitch method {");
  for (const m of model.methods.filter((x) => x.endsEventStream)) {
    out.push(`\tcase ${lit(m.name)}:`);
    out.push(`\t\tif p, ok := params.(${m.paramsType}); ok {`);
    out.push("\t\t\treturn p.SessionID, true");
    out.push("\t\t}");
  }
  out.push("\t}");
  out.push('\treturn "", false');
  out.push("}");
  return out.join("\n").trimEnd() + "\n";
}

export const goEmitter: Emitter = {
  name: "go",
  emit(model: ProtocolModel) {
    const shapes = buildShapes(model);
    return [
      { path: "clients/go/types_gen.go", content: goTypes(model, shapes) },
      { path: "clients/go/methods_gen.go", content: goMethods(model, shapes) },
    ];
  },
};
