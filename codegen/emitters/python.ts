// Python types and typed method stubs for clients/python, written from the ProtocolModel
// (not quicktype: it flattens unions of objects into one class, and renames wire fields
// without keeping the wire name). Objects are keyword-only dataclasses with snake_case
// attributes and to_json/from_json that use the wire's camelCase names; tagged unions are
// `Union[...]` of those classes (match on the class), decoded by their tag.
import type { ProtocolModel } from "../model.js";
import { pascalCase } from "../model.js";
import { header, type Emitter } from "../emitter.js";
import { buildShapes, commentLines, snakeCase, type Decl, type Field, type ObjectDecl, type Shapes, type TypeRef } from "./shapes.js";

const KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(" "),
);
const RESERVED_ATTRS = new Set(["to_json", "from_json", "_from_obj"]);

export function pyName(wire: string): string {
  const n = snakeCase(wire);
  return KEYWORDS.has(n) || RESERVED_ATTRS.has(n) ? `${n}_` : n;
}

const lit = (v: unknown) => (typeof v === "boolean" ? (v ? "True" : "False") : JSON.stringify(v));

function docstring(text: string | undefined, indent: string): string[] {
  if (!text) return [];
  const lines = commentLines(text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"'), "");
  if (lines.length === 1) return [`${indent}"""${lines[0]}"""`];
  return [`${indent}"""${lines[0]}`, ...lines.slice(1).map((l) => (l ? indent + l : "")), `${indent}"""`];
}

class PyWriter {
  constructor(private readonly shapes: Shapes) {}

  decl(name: string): Decl {
    const d = this.shapes.byName.get(name);
    if (!d) throw new Error(`python: unknown type ${name}`);
    return d;
  }

  /** An optional field of this type can hold null, so "absent" needs the UNSET sentinel. */
  holdsNull(t: TypeRef): boolean {
    if (t.kind === "any" || t.kind === "nullable") return true;
    if (t.kind === "named") {
      const d = this.decl(t.name);
      return d.kind === "alias" && this.holdsNull(d.target);
    }
    return false;
  }

  type(t: TypeRef, q = ""): string {
    switch (t.kind) {
      case "string":
        return "str";
      case "integer":
        return "int";
      case "number":
        return "float";
      case "boolean":
        return "bool";
      case "any":
        return "Any";
      case "anyObject":
        return "Dict[str, Any]";
      case "named":
        return q + t.name;
      case "array":
        return `List[${this.type(t.items, q)}]`;
      case "map":
        return `Dict[str, ${this.type(t.values, q)}]`;
      case "nullable":
        return `Optional[${this.type(t.inner, q)}]`;
    }
  }

  fieldType(f: Field, q = ""): string {
    const base = this.type(f.type, q);
    if (f.required) return base;
    if (this.holdsNull(f.type)) return base === "Any" ? "Any" : `Union[${base}, Unset]`;
    return base.startsWith("Optional[") ? base : `Optional[${base}]`;
  }

  fieldDefault(f: Field): string | undefined {
    if (f.required) return undefined;
    if (f.default !== undefined) return f.default ? "True" : "False";
    return this.holdsNull(f.type) ? "UNSET" : "None";
  }

  /** An expression for a decoder callable (value, path) -> T. */
  decoder(t: TypeRef): string {
    const num = (fn: string, x: { minimum?: number; maximum?: number }) =>
      x.minimum === undefined && x.maximum === undefined ? `_c.${fn.toUpperCase()}` : `_c.${fn}_range(${x.minimum ?? "None"}, ${x.maximum ?? "None"})`;
    switch (t.kind) {
      case "string":
        return t.minLength !== undefined ? `_c.string_min(${t.minLength})` : "_c.STRING";
      case "integer":
        return num("integer", t);
      case "number":
        return num("number", t);
      case "boolean":
        return "_c.BOOLEAN";
      case "any":
        return "_c.ANY";
      case "anyObject":
        return "_c.ANY_OBJECT";
      case "named": {
        const d = this.decl(t.name);
        if (d.kind === "object") return `${t.name}.from_json`;
        return `_decode_${t.name}`;
      }
      case "array":
        return `_c.array_of(${this.decoder(t.items)})`;
      case "map":
        return `_c.map_of(${this.decoder(t.values)})`;
      case "nullable":
        return `_c.nullable(${this.decoder(t.inner)})`;
    }
  }
}

function extraAttr(d: ObjectDecl): string {
  return d.fields.some((f) => pyName(f.wire) === "extra") ? "extra_fields" : "extra";
}

function emitObject(w: PyWriter, d: ObjectDecl, out: string[]): void {
  const attrs = new Set<string>();
  for (const f of [...d.fields, ...d.consts]) {
    const n = pyName(f.wire);
    if (attrs.has(n)) throw new Error(`python: ${d.name}: two attributes named ${n}`);
    attrs.add(n);
  }
  out.push("");
  out.push("");
  out.push("@dataclass(kw_only=True)");
  out.push(`class ${d.name}:`);
  out.push(...docstring(d.description ?? d.name, "    "));
  for (const c of d.consts) {
    const t = typeof c.value === "string" ? `Literal[${lit(c.value)}]` : typeof c.value === "boolean" ? `Literal[${lit(c.value)}]` : "float";
    out.push(`    ${pyName(c.wire)}: ClassVar[${t}] = ${lit(c.value)}`);
  }
  // Required fields first (no default), then optional ones; all keyword-only.
  const ordered = [...d.fields.filter((f) => f.required), ...d.fields.filter((f) => !f.required)];
  for (const f of ordered) {
    const def = w.fieldDefault(f);
    out.push(`    ${pyName(f.wire)}: ${w.fieldType(f)}${def ? ` = ${def}` : ""}`);
    if (f.description) out.push(...docstring(f.description, "    "));
  }
  if (!d.closed) {
    out.push(`    ${extraAttr(d)}: Dict[str, Any] = field(default_factory=dict, repr=False)`);
    out.push('    """Fields this client does not know, kept as received and written back by to_json."""');
  }
  const known = [...d.consts.map((c) => c.wire), ...d.fields.map((f) => f.wire)];
  out.push("");
  out.push("    def to_json(self) -> Dict[str, Any]:");
  out.push('        """The wire form: camelCase names, fixed fields included, absent fields left out."""');
  out.push("        out: Dict[str, Any] = {}");
  for (const c of d.consts) out.push(`        out[${lit(c.wire)}] = ${lit(c.value)}`);
  for (const f of d.fields) {
    const a = `self.${pyName(f.wire)}`;
    if (f.required) out.push(`        out[${lit(f.wire)}] = _c.encode(${a})`);
    else {
      out.push(`        if ${a} is not ${w.fieldDefault(f)}:`);
      out.push(`            out[${lit(f.wire)}] = _c.encode(${a})`);
    }
  }
  if (!d.closed) {
    out.push(`        for k, v in self.${extraAttr(d)}.items():`);
    out.push("            out.setdefault(k, v)");
  }
  out.push("        return out");
  out.push("");
  out.push("    @classmethod");
  out.push(`    def from_json(cls, data: Any, path: str = ${lit(d.name)}) -> ${d.name}:`);
  out.push(`        """Decodes and checks one ${d.name}; raises DecodeError naming the bad field."""`);
  out.push("        return cls._from_obj(_c.obj(data, path), path)");
  out.push("");
  out.push("    @classmethod");
  out.push(`    def _from_obj(cls, d: Dict[str, Any], path: str) -> ${d.name}:`);
  for (const c of d.consts) out.push(`        _c.const(d, ${lit(c.wire)}, ${lit(c.value)}, path)`);
  if (d.closed) out.push(`        _c.reject_unknown(d, ${knownSetName(d.name)}, path)`);
  const args: string[] = [];
  for (const f of d.fields) {
    const n = pyName(f.wire);
    if (f.required) args.push(`${n}=_c.required(d, ${lit(f.wire)}, path, ${w.decoder(f.type)})`);
    else args.push(`${n}=_c.optional(d, ${lit(f.wire)}, path, ${w.decoder(f.type)}, ${w.fieldDefault(f)})`);
  }
  if (!d.closed) args.push(`${extraAttr(d)}=_c.extra(d, ${knownSetName(d.name)})`);
  if (args.length) {
    out.push("        return cls(");
    for (const a of args) out.push(`            ${a},`);
    out.push("        )");
  } else out.push("        return cls()");
  out.push("");
  out.push("");
  out.push(`${knownSetName(d.name)}: FrozenSet[str] = frozenset({${known.map(lit).join(", ")}})`);
}

function knownSetName(name: string): string {
  return `_${name}_FIELDS`;
}

function emitEnumOrAlias(w: PyWriter, d: Decl, out: string[]): void {
  if (d.kind === "enum") {
    out.push("");
    const known = `Literal[${d.values.map(lit).join(", ")}]`;
    // An open enum (x-open) may gain values in a minor version: any string decodes.
    out.push(`${d.name} = ${d.open ? `Union[${known}, str]` : known}`);
    out.push(...docstring(d.description, ""));
    out.push(`_${d.name}_VALUES: FrozenSet[str] = frozenset(get_args(${known}))`);
    out.push("");
    out.push("");
    out.push(`def _decode_${d.name}(v: Any, path: str = ${lit(d.name)}) -> ${d.name}:`);
    out.push(d.open ? `    return _c.STRING(v, path)` : `    return cast(${d.name}, _c.enum(v, path, _${d.name}_VALUES))`);
    out.push("");
  } else if (d.kind === "alias") {
    out.push("");
    out.push(`${d.name} = ${w.type(d.target)}`);
    out.push(...docstring(d.description, ""));
    out.push("");
    out.push("");
    out.push(`def _decode_${d.name}(v: Any, path: str = ${lit(d.name)}) -> ${d.name}:`);
    out.push(`    return ${w.decoder(d.target)}(v, path)`);
    out.push("");
  }
}

function emitUnion(w: PyWriter, d: Decl, out: string[]): void {
  if (d.kind === "taggedUnion") {
    if (d.open) {
      out.push("");
      out.push("");
      out.push("@dataclass(kw_only=True)");
      out.push(`class Unknown${d.name}:`);
      out.push(`    """A ${d.name} whose \`${d.tag}\` this client does not know; \`raw\` is the object as received."""`);
      out.push(`    ${pyName(d.tag)}: str`);
      out.push("    raw: Dict[str, Any]");
      out.push("");
      out.push("    def to_json(self) -> Dict[str, Any]:");
      out.push("        return dict(self.raw)");
    }
    const members = [...d.variants.map((v) => v.type), ...(d.open ? [`Unknown${d.name}`] : [])];
    out.push("");
    out.push("");
    out.push(`${d.name} = Union[${members.join(", ")}]`);
    out.push(...docstring(d.description, ""));
    out.push("");
    out.push("");
    out.push(`def decode_${snakeCase(d.name)}(data: Any, path: str = ${lit(d.name)}) -> ${d.name}:`);
    out.push(`    """Decodes one ${d.name} by its \`${d.tag}\`${d.open ? `; an unknown one becomes Unknown${d.name}` : ""}."""`);
    out.push("    d = _c.obj(data, path)");
    out.push(`    tag = _c.tag(d, ${lit(d.tag)}, path)`);
    for (const v of d.variants) {
      out.push(`    if tag == ${lit(v.tag)}:`);
      out.push(`        return ${v.type}._from_obj(d, path)`);
    }
    if (d.open) out.push(`    return Unknown${d.name}(${pyName(d.tag)}=tag, raw=d)`);
    else out.push(`    raise _c.DecodeError(path, f"unknown ${d.tag} {tag!r}")`);
    out.push("");
    out.push("");
    out.push(`_decode_${d.name} = decode_${snakeCase(d.name)}`);
  } else if (d.kind === "untaggedUnion") {
    const names = d.variants.map((v) => w.type(v));
    out.push("");
    out.push("");
    out.push(`${d.name} = Union[${names.join(", ")}]`);
    out.push(...docstring(d.description, ""));
    out.push("");
    out.push("");
    out.push(`def decode_${snakeCase(d.name)}(data: Any, path: str = ${lit(d.name)}) -> ${d.name}:`);
    out.push(`    """Decodes one ${d.name}: the first of ${names.join(", ")} that matches."""`);
    for (const v of d.variants) {
      out.push("    try:");
      out.push(`        return ${w.decoder(v)}(data, path)`);
      out.push("    except _c.DecodeError:");
      out.push("        pass");
    }
    out.push(`    raise _c.DecodeError(path, "matches none of ${names.join(", ")}")`);
    out.push("");
    out.push("");
    out.push(`_decode_${d.name} = decode_${snakeCase(d.name)}`);
  }
}

export function pythonTypes(model: ProtocolModel, shapes = buildShapes(model)): string {
  const w = new PyWriter(shapes);
  const out: string[] = [];
  out.push(header(model, "#").trimEnd());
  out.push(`"""The ${model.protocol} protocol types: dataclasses with snake_case attributes whose`);
  out.push("to_json/from_json use the wire's camelCase names, and unions a host can match on.\"\"\"");
  out.push("");
  out.push("from __future__ import annotations");
  out.push("");
  out.push("from dataclasses import dataclass, field");
  out.push("from typing import Any, Callable, ClassVar, Dict, FrozenSet, List, Literal, Optional, Union, cast, get_args");
  out.push("");
  out.push("from . import _codec as _c");
  out.push("from ._codec import UNSET, Unset");
  out.push("");
  out.push(`PROTOCOL = ${lit(model.protocol)}`);
  out.push(`SCHEMA_VERSION = ${lit(model.version)}`);
  // Order for Python's runtime: plain aliases and enums, then classes, then unions, then
  // aliases that refer to unions or classes.
  const simpleAlias = (d: Decl) => d.kind === "enum" || (d.kind === "alias" && !refersToNamed(d.target));
  for (const d of shapes.decls) if (simpleAlias(d)) emitEnumOrAlias(w, d, out);
  for (const d of shapes.decls) if (d.kind === "object") emitObject(w, d, out);
  for (const d of shapes.decls) if (d.kind === "taggedUnion" || d.kind === "untaggedUnion") emitUnion(w, d, out);
  for (const d of shapes.decls) if (d.kind === "alias" && !simpleAlias(d)) emitEnumOrAlias(w, d, out);
  out.push("");
  out.push("");
  out.push("_DECODERS: Dict[str, Callable[[Any, str], Any]] = {");
  for (const name of model.typeNames) {
    const d = w.decl(name);
    out.push(`    ${lit(name)}: ${d.kind === "object" ? `${name}.from_json` : `_decode_${name}`},`);
  }
  out.push("}");
  out.push("");
  out.push("");
  out.push("def decode_by_type_name(name: str, data: Any) -> Any:");
  out.push('    """Decodes data (parsed JSON) as the schema type called name, e.g. "AgentEvent"."""');
  out.push("    dec = _DECODERS.get(name)");
  out.push("    if dec is None:");
  out.push('        raise KeyError(f"no type {name!r} in the schema")');
  out.push("    return dec(data, name)");
  const exported = ["PROTOCOL", "SCHEMA_VERSION", "UNSET", "Unset", "decode_by_type_name"];
  for (const d of shapes.decls) {
    exported.push(d.name);
    if (d.kind === "taggedUnion" || d.kind === "untaggedUnion") exported.push(`decode_${snakeCase(d.name)}`);
    if (d.kind === "taggedUnion" && d.open) exported.push(`Unknown${d.name}`);
  }
  out.push("");
  out.push("");
  out.push("__all__ = [");
  for (const e of exported) out.push(`    ${lit(e)},`);
  out.push("]");
  return out.join("\n") + "\n";
}

function refersToNamed(t: TypeRef): boolean {
  return t.kind === "named" || ((t.kind === "array" || t.kind === "map") && refersToNamed(t.kind === "array" ? t.items : t.values)) || (t.kind === "nullable" && refersToNamed(t.inner));
}

export function pythonMethods(model: ProtocolModel, shapes = buildShapes(model)): string {
  const w = new PyWriter(shapes);
  const out: string[] = [];
  out.push(header(model, "#").trimEnd());
  out.push('"""One typed stub per method: HostMethods (host → sidecar calls), AsyncHostMethods (the');
  out.push('same for asyncio) and SidecarHandler (what the sidecar sends), over the transport the');
  out.push('runtime provides."""');
  out.push("");
  out.push("from __future__ import annotations");
  out.push("");
  out.push("import abc");
  out.push("from typing import Any, Dict, FrozenSet, List, Optional, Tuple, Union");
  out.push("");
  out.push("from . import _codec as _c");
  out.push("from . import _generated_protocol as p");
  out.push("from ._codec import UNSET, Unset");
  out.push("");
  out.push("");
  for (const isAsync of [false, true]) {
    const def = isAsync ? "async def" : "def";
    const aw = isAsync ? "await " : "";
    if (isAsync) out.push("", "");
    out.push(`class ${isAsync ? "AsyncHostMethods" : "HostMethods"}(abc.ABC):`);
    out.push(
      isAsync
        ? '    """HostMethods for asyncio: the same calls, each a coroutine."""'
        : '    """The calls a host makes. Each builds its params, sends them and decodes the result."""',
    );
    out.push("");
    out.push("    @abc.abstractmethod");
    out.push(`    ${def} _request(self, method: str, params: Dict[str, Any], timeout: Optional[float]) -> Any:`);
    out.push('        """Sends one request and returns its result (parsed JSON), or raises A4aaError."""');
    for (const m of model.methods.filter((x) => x.direction === "hostToSidecar")) {
      if (m.notification) throw new Error(`python: host → sidecar notification ${m.name} is not supported yet`);
      const params = shapes.byName.get(m.paramsType);
      if (!params || params.kind !== "object") throw new Error(`python: ${m.paramsType} is not an object`);
      const fields = [...params.fields.filter((f) => f.required), ...params.fields.filter((f) => !f.required)];
      if (fields.some((f) => pyName(f.wire) === "timeout")) throw new Error(`python: ${m.name} has a param named timeout`);
      const args = ["self", "*", ...fields.map((f) => `${pyName(f.wire)}: ${w.fieldType(f, "p.")}${w.fieldDefault(f) ? ` = ${w.fieldDefault(f)}` : ""}`), "timeout: Optional[float] = None"];
      const res = m.resultType!;
      out.push("");
      out.push(`    ${def} ${snakeCase(pascalCase(m.name))}(`);
      for (const a of args) out.push(`        ${a},`);
      out.push(`    ) -> p.${res}:`);
      out.push(...docstring(`\`${m.name}\`: ${m.summary}${m.experimental ? " (experimental)" : ""}`, "        "));
      out.push(`        params = p.${m.paramsType}(${fields.map((f) => `${pyName(f.wire)}=${pyName(f.wire)}`).join(", ")})`);
      out.push(`        raw = ${aw}self._request(${lit(m.name)}, params.to_json(), timeout)`);
      const d = shapes.byName.get(res)!;
      out.push(`        return ${d.kind === "object" ? `p.${res}.from_json` : `p._decode_${res}`}(raw, ${lit(res)})`);
    }
  }
  const incoming = model.methods.filter((x) => x.direction === "sidecarToHost");
  out.push("", "");
  out.push("# Methods whose success ends the event stream of the session their sessionId names (x-ends-event-stream).");
  out.push(`ENDS_EVENT_STREAM: FrozenSet[str] = frozenset({${model.methods.filter((m) => m.endsEventStream).map((m) => lit(m.name)).join(", ")}})`);
  out.push("");
  out.push("");
  out.push("class SidecarHandler(abc.ABC):");
  out.push('    """Receives every message the sidecar sends, decoded. The client implements it; a new');
  out.push('    sidecar → host method in the schema makes that client abstract until it is handled."""');
  for (const m of incoming) {
    out.push("");
    out.push("    @abc.abstractmethod");
    const name = `on_${snakeCase(pascalCase(m.name))}`;
    if (m.notification) out.push(`    def ${name}(self, params: p.${m.paramsType}) -> None:`);
    else out.push(`    def ${name}(self, params: p.${m.paramsType}) -> p.${m.resultType}:`);
    out.push(...docstring(`\`${m.name}\`${m.notification ? " (a notification)" : ""}: ${m.summary}`, "        "));
  }
  out.push("");
  out.push("");
  out.push("def dispatch_sidecar(handler: SidecarHandler, method: str, params: Any) -> Tuple[bool, Any]:");
  out.push('    """Decodes one sidecar → host message and hands it to handler. Returns (known, result as');
  out.push('    JSON); raises DecodeError when the params do not match the schema."""');
  for (const m of incoming) {
    const name = `on_${snakeCase(pascalCase(m.name))}`;
    out.push(`    if method == ${lit(m.name)}:`);
    if (m.notification) {
      out.push(`        handler.${name}(p.${m.paramsType}.from_json(params, ${lit(m.paramsType)}))`);
      out.push("        return True, None");
    } else {
      out.push(`        result = handler.${name}(p.${m.paramsType}.from_json(params, ${lit(m.paramsType)}))`);
      out.push("        return True, _c.encode(result)");
    }
  }
  out.push("    return False, None");
  return out.join("\n") + "\n";
}

export const pythonEmitter: Emitter = {
  name: "python",
  emit(model: ProtocolModel) {
    const shapes = buildShapes(model);
    return [
      { path: "clients/python/src/a4aa/_generated_protocol.py", content: pythonTypes(model, shapes) },
      { path: "clients/python/src/a4aa/_generated_methods.py", content: pythonMethods(model, shapes) },
    ];
  },
};
