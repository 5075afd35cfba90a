// The structural walk: compares two schemas found at the same spot of the protocol and
// records each difference as a raw change (rule, location, the role of the message).
// Judging and merging happen in diff.ts.
// Over 350 lines: one recursive walk; its cases (types, values, objects, arrays, combinators) call each other.
import { resolve, type ProtocolModel as ProtocolDoc, type Schema } from "../openrpc/model.js";
import type { Facts, Role } from "./rules.js";

export interface RawChange {
  rule: string;
  /** `TypeName.field[].sub`, `AgentEvent`, `method session/open`, … */
  location: string;
  detail: string;
  role: Role;
  /** The message part that reaches the spot, e.g. `session/open params`. */
  use: string;
  /** Experimental in the old document (or, for an addition, in the new one): carries no promise. */
  excused: boolean;
  facts: Facts;
}

export interface Ctx {
  role: Role;
  use: string;
  oldExp: boolean;
  newExp: boolean;
  /** Named pairs being compared on this path (guards against recursive types). */
  stack: Set<string>;
}

const ALL_TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"];
const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"];
const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];
const EXACT = ["pattern", "format", "multipleOf", "propertyNames"];
// `x-empty-means-absent` is a generator hint (an empty string already meant absent): a docs change.
const DOCS = ["description", "title", "summary", "examples", "$comment", "x-empty-means-absent"];
/** Keywords that state a protocol fact (a default, an x- rule table) of the element they sit on. */
const FACT_KEYWORDS = new Set(["default", "x-preset-rules", "x-session-process"]);
/** Keywords the walk understands; any other keyword that differs is `unclassified`. */
const HANDLED = new Set([
  ...DOCS,
  ...LOWER,
  ...UPPER,
  ...EXACT,
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "oneOf",
  "anyOf",
  "allOf",
  "discriminator",
  "$ref",
  "uniqueItems",
  "tsType",
  "x-experimental",
  "x-open",
  // Judged as protocol facts in diff.ts, not as schema shape.
  "x-error-codes",
]);

export const key = (v: unknown): string => JSON.stringify(sortKeys(v));

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Schema)[k])]),
    );
  }
  return v;
}

/** A schema's wire shape: annotations dropped, keys sorted (for spotting renames). */
export function shapeKey(doc: ProtocolDoc, s: Schema): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === "object") {
      const out: Schema = {};
      for (const [k, x] of Object.entries(v)) {
        if (DOCS.includes(k)) continue;
        out[k] = k === "properties" ? Object.fromEntries(Object.entries(x as Schema).map(([pk, pv]) => [pk, strip(pv)])) : strip(x);
      }
      return out;
    }
    return v;
  };
  void doc;
  return key(strip(s));
}

export function valuesOf(s: Schema): unknown[] | undefined {
  if ("const" in s) return [s.const];
  return Array.isArray(s.enum) ? s.enum : undefined;
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typesOf(s: Schema): Set<string> {
  if (typeof s.type === "string") return new Set([s.type]);
  if (Array.isArray(s.type)) return new Set(s.type as string[]);
  const vals = valuesOf(s);
  if (vals) return new Set(vals.map(jsonType));
  if (s.properties || s.allOf || s.additionalProperties !== undefined || s.unevaluatedProperties !== undefined) return new Set(["object"]);
  if (s.items) return new Set(["array"]);
  return new Set(ALL_TYPES);
}

const covers = (set: Set<string>, t: string) => set.has(t) || (t === "integer" && set.has("number"));

const isUnion = (s: Schema) => Array.isArray(s.oneOf) || Array.isArray(s.anyOf);
const isObjectish = (s: Schema) =>
  s.type === "object" || s.properties !== undefined || s.allOf !== undefined || s.additionalProperties !== undefined;

/** The enum or union tells hosts to ignore members they do not know (`x-open`, or the sentence in its description). */
export function isOpen(...schemas: Schema[]): boolean {
  return schemas.some(
    (s) =>
      s["x-open"] === true ||
      (typeof s.description === "string" && /must ignore [^.]*\b(do|does) not know\b/i.test(s.description)),
  );
}

interface Prop {
  schema: Schema;
  origin: string;
  required: boolean;
}
interface Flat {
  props: Map<string, Prop>;
  closed: boolean;
  extra?: Schema;
}

/** An object with its `allOf` mixins merged in; each field remembers the type that declares it. */
export function flatten(doc: ProtocolDoc, s: Schema, origin: string): Flat {
  const props = new Map<string, Prop>();
  for (const sub of (s.allOf ?? []) as Schema[]) {
    const r = resolve(doc, sub);
    for (const [k, p] of flatten(doc, r.schema, r.name ?? origin).props) props.set(k, p);
  }
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
    props.set(k, { schema: v, origin, required: false });
  }
  for (const k of (s.required ?? []) as string[]) {
    const p = props.get(k);
    if (p) p.required = true;
  }
  return {
    props,
    closed: s.additionalProperties === false || s.unevaluatedProperties === false,
    extra: s.additionalProperties && typeof s.additionalProperties === "object" ? (s.additionalProperties as Schema) : undefined,
  };
}

const show = (v: unknown) => JSON.stringify(v);

export class Walker {
  readonly changes: RawChange[] = [];
  constructor(
    readonly a: ProtocolDoc,
    readonly b: ProtocolDoc,
  ) {}

  emit(ctx: Ctx, rule: string, location: string, detail: string, opts: { added?: boolean; facts?: Facts; exp?: boolean } = {}) {
    const excused = ctx.oldExp || opts.exp === true || (opts.added === true && ctx.newExp);
    this.changes.push({ rule, location, detail, role: ctx.role, use: ctx.use, excused, facts: opts.facts ?? {} });
  }

  private marks(o: Schema, n: Schema, loc: string, ctx: Ctx) {
    const oe = o["x-experimental"] === true;
    const ne = n["x-experimental"] === true;
    if (!oe && ne && !ctx.oldExp) this.emit(ctx, "experimental-marked", loc, "now x-experimental");
    if (oe && !ne && !ctx.newExp) this.emit({ ...ctx, oldExp: false }, "experimental-unmarked", loc, "no longer x-experimental");
    const oo = isOpen(o);
    const no = isOpen(n);
    if (!oo && no) this.emit(ctx, "open-marked", loc, "now x-open: hosts must accept members they do not know");
    if (oo && !no) this.emit(ctx, "open-unmarked", loc, "no longer x-open");
    for (const k of DOCS) {
      if (key(o[k]) !== key(n[k])) this.emit({ ...ctx, oldExp: false }, "docs-changed", loc, k);
    }
  }

  compare(o: Schema, n: Schema, loc: string, ctx: Ctx): void {
    this.marks(o, n, loc, ctx);
    const ro = resolve(this.a, o);
    const rn = resolve(this.b, n);
    let l = loc;
    // A rename, an inlined or an extracted type; a type that became (or stopped being) one
    // branch of a union is the union's business.
    if (ro.name !== rn.name && isUnion(ro.schema) === isUnion(rn.schema)) {
      this.emit(ctx, "codegen-changed", loc, `type ${ro.name ?? "(inline)"} → ${rn.name ?? "(inline)"}`);
    }
    // Inside a named type, locations start from its name; an inlined type stays where it is used.
    if (rn.name) l = rn.name;
    const os = ro.schema;
    const ns = rn.schema;
    const c: Ctx = {
      ...ctx,
      oldExp: ctx.oldExp || o["x-experimental"] === true || os["x-experimental"] === true,
      newExp: ctx.newExp || n["x-experimental"] === true || ns["x-experimental"] === true,
    };
    if (ro.name || rn.name) {
      const guard = `${ro.name}|${rn.name}|${ctx.role}`;
      if (ctx.stack.has(guard)) return;
      c.stack = new Set(ctx.stack).add(guard);
      if (ro.name && ro.name === rn.name) this.marks(os, ns, l, ctx);
    }
    const open = isOpen(n, ns);

    if (isUnion(os) || isUnion(ns)) {
      this.compareUnion(isUnion(os) ? os : o, isUnion(ns) ? ns : n, l, c, open);
      return;
    }
    const ov = valuesOf(os);
    const nv = valuesOf(ns);
    if (ov && nv) this.compareValues(ov, nv, "const" in os && "const" in ns, l, c, open);
    else {
      const ot = typesOf(os);
      const nt = typesOf(ns);
      const removed = [...ot].filter((t) => !covers(nt, t));
      const added = [...nt].filter((t) => !covers(ot, t));
      const from = [...ot].sort().join("|");
      const to = [...nt].sort().join("|");
      if (removed.length && added.length) this.emit(c, "type-changed", l, `${from} → ${to}`);
      else if (removed.length) this.emit(c, "type-narrowed", l, `${from} → ${to}`);
      else if (added.length) this.emit(c, "type-widened", l, `${from} → ${to}`, { added: true });
      if (!ov && nv) this.emit(c, "constraint-tightened", l, `now limited to ${nv.map(show).join(", ")}`);
      if (ov && !nv) this.emit(c, "constraint-loosened", l, `no longer limited to ${ov.map(show).join(", ")}`);
    }
    this.compareConstraints(os, ns, l, c);
    if (isObjectish(os) || isObjectish(ns)) this.compareObject(os, ns, l, c);
    if (os.items || ns.items) this.compare((os.items ?? {}) as Schema, (ns.items ?? {}) as Schema, `${l}[]`, c);
    for (const k of new Set([...Object.keys(os), ...Object.keys(ns)])) {
      if (HANDLED.has(k) && k !== "tsType") continue;
      if (key(os[k]) === key(ns[k])) continue;
      if (k === "tsType") this.emit(c, "codegen-changed", l, `tsType ${show(os[k])} → ${show(ns[k])}`);
      // A default (1.3: the `default` keyword) or a rule table first written down states what
      // the description already said; a changed one changes behaviour hosts may rely on.
      else if (FACT_KEYWORDS.has(k)) this.emit(c, os[k] === undefined ? "protocol-fact-declared" : "protocol-fact-changed", l, `${k}: ${show(os[k])} → ${show(ns[k])}`);
      else this.emit(c, "unclassified", l, `keyword ${k}: ${show(os[k])} → ${show(ns[k])}`);
    }
  }

  private compareValues(ov: unknown[], nv: unknown[], bothConst: boolean, l: string, c: Ctx, open: boolean) {
    const ok = new Set(ov.map(key));
    const nk = new Set(nv.map(key));
    const removed = ov.filter((v) => !nk.has(key(v)));
    const added = nv.filter((v) => !ok.has(key(v)));
    if (bothConst && removed.length && added.length) {
      this.emit(c, "const-changed", l, `${show(ov[0])} → ${show(nv[0])}`);
      return;
    }
    for (const v of removed) this.emit(c, "enum-value-removed", l, `value ${show(v)} removed`);
    for (const v of added) this.emit(c, "enum-value-added", l, `value ${show(v)} added`, { added: true, facts: { open } });
  }

  private compareConstraints(os: Schema, ns: Schema, l: string, c: Ctx) {
    const bound = (k: string, stricter: (o: number, n: number) => boolean) => {
      const o = os[k] as number | undefined;
      const n = ns[k] as number | undefined;
      if (o === n) return;
      const tight = o === undefined || (n !== undefined && stricter(o, n));
      this.emit(c, tight ? "constraint-tightened" : "constraint-loosened", l, `${k} ${show(o)} → ${show(n)}`, { added: !tight });
    };
    for (const k of LOWER) bound(k, (o, n) => n > o);
    for (const k of UPPER) bound(k, (o, n) => n < o);
    for (const k of EXACT) {
      if (key(os[k]) === key(ns[k])) continue;
      const rule = os[k] === undefined ? "constraint-tightened" : ns[k] === undefined ? "constraint-loosened" : "constraint-changed";
      this.emit(c, rule, l, `${k} ${show(os[k])} → ${show(ns[k])}`, { added: rule === "constraint-loosened" });
    }
    if (os.uniqueItems !== ns.uniqueItems) {
      const tight = ns.uniqueItems === true;
      this.emit(c, tight ? "constraint-tightened" : "constraint-loosened", l, `uniqueItems ${show(os.uniqueItems)} → ${show(ns.uniqueItems)}`);
    }
  }

  private compareObject(os: Schema, ns: Schema, l: string, c: Ctx) {
    const fo = flatten(this.a, os, l);
    const fn = flatten(this.b, ns, l);
    if (!fo.closed && fn.closed) this.emit(c, "object-closed", l, "unknown fields now rejected");
    if (fo.closed && !fn.closed) this.emit(c, "object-opened", l, "unknown fields now accepted", { added: true });
    const removed = [...fo.props.keys()].filter((k) => !fn.props.has(k));
    const added = [...fn.props.keys()].filter((k) => !fo.props.has(k));
    const exp = (s: Schema) => s["x-experimental"] === true;

    // A rename is a removal and an addition of the same shape: report it once, as what it is.
    const shapeOld = (k: string) => `${fo.props.get(k)!.required}:${shapeKey(this.a, fo.props.get(k)!.schema)}`;
    const shapeNew = (k: string) => `${fn.props.get(k)!.required}:${shapeKey(this.b, fn.props.get(k)!.schema)}`;
    for (const r of [...removed]) {
      const same = added.filter((a) => shapeNew(a) === shapeOld(r));
      const back = removed.filter((x) => same.length === 1 && shapeOld(x) === shapeNew(same[0]));
      if (same.length !== 1 || back.length !== 1) continue;
      const np = fn.props.get(same[0])!;
      this.emit(c, "field-renamed", `${np.origin}.${same[0]}`, `renamed from ${r}`, { exp: exp(fo.props.get(r)!.schema) });
      removed.splice(removed.indexOf(r), 1);
      added.splice(added.indexOf(same[0]), 1);
    }
    for (const [k, np] of fn.props) {
      const op = fo.props.get(k);
      if (!op) continue;
      const pl = `${np.origin}.${k}`;
      const pc = { ...c, oldExp: c.oldExp || exp(op.schema), newExp: c.newExp || exp(np.schema) };
      if (!op.required && np.required) this.emit(pc, "field-now-required", pl, "now required");
      if (op.required && !np.required) this.emit(pc, "field-now-optional", pl, "now optional");
      this.compare(op.schema, np.schema, pl, c);
    }
    for (const k of removed) {
      const op = fo.props.get(k)!;
      this.emit(c, "field-removed", `${op.origin}.${k}`, op.required ? "required field removed" : "optional field removed", {
        exp: exp(op.schema),
        facts: { wasRequired: op.required },
      });
    }
    for (const k of added) {
      const np = fn.props.get(k)!;
      this.emit(c, np.required ? "field-added-required" : "field-added-optional", `${np.origin}.${k}`, np.required ? "required field added" : "optional field added", {
        added: true,
        exp: exp(np.schema),
        facts: { closed: fn.closed },
      });
    }
    if (fo.extra && fn.extra) this.compare(fo.extra, fn.extra, `${l}{}`, c);
    else if (fo.extra && !fn.extra && !fn.closed) this.emit(c, "constraint-loosened", `${l}{}`, "map values no longer constrained", { added: true });
    else if (!fo.extra && fn.extra && !fo.closed) this.emit(c, "constraint-tightened", `${l}{}`, "map values now constrained");
  }

  private branches(s: Schema): Schema[] {
    const list = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
    if (list) return list;
    // `type: [a, b]` is a union of primitive branches; compare it as one.
    if (Array.isArray(s.type) && s.type.length > 1 && !isObjectish(s) && !s.items && !valuesOf(s)) {
      return (s.type as string[]).map((t) => ({ ...s, type: t }));
    }
    return [s];
  }

  private discriminator(doc: ProtocolDoc, s: Schema, branches: Schema[]): string | undefined {
    const declared = (s.discriminator as Schema | undefined)?.propertyName as string | undefined;
    if (declared) return declared;
    if (branches.length < 2) return undefined;
    // Undeclared but real: every branch an object with a single-valued, required property in common.
    const flats = branches.map((b) => flatten(doc, resolve(doc, b).schema, ""));
    for (const [k] of flats[0].props) {
      if (flats.every((f) => f.props.get(k)?.required && valuesOf(resolve(doc, f.props.get(k)!.schema).schema)?.length === 1)) return k;
    }
    return undefined;
  }

  /** `os`/`ns`: the union, or the schema as written (a `$ref` keeps its name) when one side is not one. */
  private compareUnion(os: Schema, ns: Schema, l: string, c: Ctx, open: boolean) {
    const ob = this.branches(os);
    const nb = this.branches(ns);
    const od = isUnion(os) ? this.discriminator(this.a, os, ob) : undefined;
    const nd = isUnion(ns) ? this.discriminator(this.b, ns, nb) : undefined;
    if (od && nd && od !== nd) this.emit(c, "discriminator-changed", l, `${od} → ${nd}`);
    const d = od && nd && od !== nd ? undefined : (nd ?? od);
    const info = (doc: ProtocolDoc, b: Schema) => {
      const r = resolve(doc, b);
      let tag: string | undefined;
      if (d) {
        const p = flatten(doc, r.schema, "").props.get(d);
        const v = p ? valuesOf(resolve(doc, p.schema).schema) : undefined;
        if (v?.length === 1) tag = key(v[0]);
      }
      const types = [...typesOf(r.schema)].sort().join("|");
      const req = isObjectish(r.schema) ? [...flatten(doc, r.schema, "").props].filter(([, p]) => p.required).map(([k]) => k).sort().join(",") : "";
      return { schema: b, name: r.name, tag, sig: `${types}:${req}`, label: tag ? `${d}=${tag}${r.name ? ` (${r.name})` : ""}` : (r.name ?? types) };
    };
    const olds = ob.map((b) => info(this.a, b));
    const news = nb.map((b) => info(this.b, b));
    const pairs: [typeof olds[0], typeof news[0]][] = [];
    const take = (match: (x: (typeof olds)[0], y: (typeof news)[0]) => boolean, onPair?: (x: (typeof olds)[0], y: (typeof news)[0]) => boolean) => {
      for (const x of [...olds]) {
        const y = news.find((n) => match(x, n));
        if (!y) continue;
        olds.splice(olds.indexOf(x), 1);
        news.splice(news.indexOf(y), 1);
        if (!onPair || onPair(x, y)) pairs.push([x, y]);
      }
    };
    take((x, y) => x.tag !== undefined && x.tag === y.tag);
    take(
      (x, y) => x.name !== undefined && x.name === y.name,
      (x, y) => {
        if (x.tag === undefined || y.tag === undefined || x.tag === y.tag) return true;
        this.emit(c, "variant-renamed", l, `${x.label} → ${y.label}`);
        return false;
      },
    );
    take((x, y) => x.tag === undefined && y.tag === undefined && x.sig === y.sig);
    // A lone branch on each side is the same spot changed, not one variant swapped for another.
    if (olds.length === 1 && news.length === 1 && ob.length === 1 && nb.length === 1) take(() => true);
    for (const x of olds) this.emit(c, "variant-removed", l, `variant ${x.label} removed`);
    for (const y of news) this.emit(c, "variant-added", l, `variant ${y.label} added`, { added: true, facts: { open } });
    for (const [x, y] of pairs) this.compare(x.schema, y.schema, l, c);
  }
}
