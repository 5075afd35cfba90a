// Compares two versions of the OpenRPC document and judges every change by the rules.
import { errorDataTypes, methodNamed, parseModel, refName, refTo, resolve, type MethodModel, type ProtocolModel, type Schema } from "../openrpc/model.js";
import { Walker, key, shapeKey, type Ctx, type RawChange } from "./compare.js";
import { rule, type Bump, type Level, type Role } from "./rules.js";

export type Verdict =
  | "breaking for hosts and sidecars"
  | "breaking for hosts"
  | "breaking for sidecars"
  | "warning"
  | "compatible"
  | "docs";

export interface Change {
  rule: string;
  location: string;
  detail: string;
  verdict: Verdict;
  hosts: Level;
  sidecars: Level;
  /** Every use was experimental: the change carries no promise. */
  experimental: boolean;
  /** Why, per role that set the verdict. */
  why: string[];
  /** The message parts that reach it, e.g. `session/open params (host writes)`. */
  uses: string[];
  /** The least version bump the change needs (see versioning.ts). */
  bump: Bump;
}

export interface DiffResult {
  old: { label: string; version: string };
  new: { label: string; version: string };
  changes: Change[];
  /** The least bump all changes together need. */
  bump: Bump;
}

const LEVELS: Level[] = ["ok", "warn", "break"];
const maxLevel = (a: Level, b: Level): Level => (LEVELS.indexOf(a) >= LEVELS.indexOf(b) ? a : b);
export const BUMPS: Bump[] = ["none", "patch", "minor", "major"];
export const maxBump = (a: Bump, b: Bump): Bump => (BUMPS.indexOf(a) >= BUMPS.indexOf(b) ? a : b);

const roleOfCall = (m: MethodModel): Role => (m.direction === "hostToSidecar" ? "input" : "output");
const roleOfResult = (m: MethodModel): Role => (m.direction === "hostToSidecar" ? "output" : "input");
const WRITER: Record<Role, string> = { input: "host writes", output: "sidecar writes" };

/** Names reachable from the methods and the error data, i.e. on the wire. */
function reachable(doc: ProtocolModel): Set<string> {
  const seen = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== "object") return;
    const n = refName(v as Schema);
    if (n && !seen.has(n)) {
      seen.add(n);
      walk(doc.types[n]);
    }
    for (const [k, x] of Object.entries(v)) if (k !== "$ref") walk(x);
  };
  for (const m of doc.methods) {
    walk(m.params);
    walk(m.result);
  }
  for (const n of errorDataTypes(doc)) walk(refTo(n));
  return seen;
}

function methodShape(doc: ProtocolModel, m: MethodModel): string {
  return `${m.direction}:${m.notification}:${shapeKey(doc, m.params)}:${m.result ? (resolve(doc, m.result).name ?? shapeKey(doc, m.result)) : ""}`;
}

export function diffDocuments(a: ProtocolModel, b: ProtocolModel): DiffResult {
  const w = new Walker(a, b);
  const ctx = (role: Role, use: string, oldExp = false, newExp = false): Ctx => ({ role, use, oldExp, newExp, stack: new Set() });
  const docCtx = ctx("output", "document");

  if (a.protocol !== b.protocol) w.emit(docCtx, "protocol-renamed", "x-protocol", `${a.protocol} → ${b.protocol}`);
  for (const k of ["title", "description"]) {
    if (key(a.info[k]) !== key(b.info[k])) w.emit(docCtx, "docs-changed", "info", k);
  }

  // Methods: a rename is a removal plus an addition of the same shape.
  const removed = a.methods.filter((m) => !methodNamed(b, m.name));
  const added = b.methods.filter((m) => !methodNamed(a, m.name));
  for (const r of [...removed]) {
    const same = added.filter((x) => methodShape(b, x) === methodShape(a, r));
    if (same.length !== 1) continue;
    w.emit(ctx(roleOfCall(r), `${same[0].name} call`, r.experimental), "method-renamed", `method ${same[0].name}`, `renamed from ${r.name}`);
    removed.splice(removed.indexOf(r), 1);
    added.splice(added.indexOf(same[0]), 1);
  }
  for (const m of removed) w.emit(ctx(roleOfCall(m), `${m.name} call`, m.experimental), "method-removed", `method ${m.name}`, `${m.direction} ${m.notification ? "notification" : "request"} removed`);
  for (const m of added) w.emit(ctx(roleOfCall(m), `${m.name} call`, false, m.experimental), "method-added", `method ${m.name}`, `${m.direction} ${m.notification ? "notification" : "request"} added`, { added: true });

  for (const o of a.methods) {
    const n = methodNamed(b, o.name);
    if (!n) continue;
    const loc = `method ${o.name}`;
    const call = ctx(roleOfCall(o), `${o.name} call`, o.experimental, n.experimental);
    if (o.direction !== n.direction) {
      w.emit(call, "method-direction-changed", loc, `${o.direction} → ${n.direction}`);
      continue;
    }
    if (o.notification !== n.notification) w.emit(call, "method-kind-changed", loc, n.notification ? "request → notification" : "notification → request");
    if (o.paramStructure !== n.paramStructure) w.emit(call, "method-kind-changed", loc, `paramStructure ${o.paramStructure} → ${n.paramStructure}`);
    if (!o.experimental && n.experimental) w.emit(call, "experimental-marked", loc, "now x-experimental");
    if (o.experimental && !n.experimental) w.emit({ ...call, oldExp: false }, "experimental-unmarked", loc, "no longer x-experimental");
    if (o.paramsType !== n.paramsType) w.emit(call, "codegen-changed", loc, `params type ${o.paramsType} → ${n.paramsType}`);
    if (o.summary !== n.summary || o.description !== n.description) w.emit(call, "docs-changed", loc, "summary or description");
    w.compare(o.params, n.params, n.paramsType, ctx(roleOfCall(o), `${o.name} params`, o.experimental, n.experimental));
    if (o.result && n.result) {
      w.compare(o.result, n.result, `${o.name} result`, ctx(roleOfResult(o), `${o.name} result`, o.experimental, n.experimental));
    }
    for (const e of n.errors.filter((e) => !o.errors.includes(e))) w.emit(ctx("output", `${o.name} errors`, o.experimental), "error-added", loc, `error ${e} listed`, { added: true });
    for (const e of o.errors.filter((e) => !n.errors.includes(e))) w.emit(ctx("output", `${o.name} errors`, o.experimental), "error-removed", loc, `error ${e} no longer listed`);
  }

  // Declared errors and the type their data carries.
  for (const e of a.errors) {
    const name = e.name;
    const f = b.errors.find((x) => x.name === name);
    const ec = ctx("output", "errors");
    if (!f) w.emit(ec, "error-removed", `error ${name}`, `code ${e.code} removed`);
    else {
      if (e.code !== f.code) w.emit(ec, "error-code-changed", `error ${name}`, `${e.code} → ${f.code}`);
      if (key(e.message) !== key(f.message) || key(e.data) !== key(f.data)) w.emit(ec, "docs-changed", `error ${name}`, "message or data");
    }
  }
  for (const f of b.errors) if (!a.errors.some((e) => e.name === f.name)) w.emit(ctx("output", "errors"), "error-added", `error ${f.name}`, `code ${f.code} added`, { added: true });
  const oldData = new Set(errorDataTypes(a));
  for (const n of errorDataTypes(b)) {
    if (oldData.has(n) && a.componentNames.includes(n)) {
      const ref = refTo(n);
      w.compare(ref, ref, n, ctx("output", "error data"));
    }
  }

  protocolFacts(a, b, w, ctx("output", "protocol facts"));

  // Types no message uses: judged both ways, since nothing says who writes them.
  const ra = reachable(a);
  const rb = reachable(b);
  for (const n of new Set([...a.componentNames, ...b.componentNames])) {
    if (ra.has(n) || rb.has(n)) continue;
    const ot = a.componentNames.includes(n) ? a.types[n] : undefined;
    const nt = b.componentNames.includes(n) ? b.types[n] : undefined;
    if (!ot) w.emit(ctx("output", "unreferenced type", false, nt!["x-experimental"] === true), "type-added", n, "type added", { added: true });
    else if (!nt) w.emit(ctx("output", "unreferenced type", ot["x-experimental"] === true), "type-removed", n, "type removed");
    else {
      const ref = refTo(n);
      for (const role of ["input", "output"] as Role[]) w.compare(ref, ref, n, ctx(role, "unreferenced type"));
    }
  }
  return judge(a, b, w.changes);
}

/** The facts the x- fields declare: x-error-codes, x-error-stage, x-ends-event-stream. */
function protocolFacts(a: ProtocolModel, b: ProtocolModel, w: Walker, c: Ctx): void {
  // A fact the old document did not declare yet describes what the sidecar already did.
  const declared = (name: string) => {
    if (!a.extensions.includes(name) && b.extensions.includes(name)) w.emit(c, "protocol-fact-declared", "x-extensions", `${name} declared`);
    return a.extensions.includes(name) && b.extensions.includes(name);
  };
  // `endsSession` (1.3) is declared when the first code carries it.
  const endsDeclared = a.errorCodes.some((e) => e.endsSession);
  if (declared("x-error-codes")) {
    for (const o of a.errorCodes) {
      const n = b.errorCodes.find((x) => x.code === o.code);
      if (!n) continue; // the enum's own rules judge a removed code
      const loc = `ErrorCode ${o.code}`;
      // A changed code of the same components.errors entry is reported there, once.
      if (o.rpcError !== n.rpcError && o.rpcCode !== n.rpcCode) w.emit(c, "error-code-changed", loc, `JSON-RPC code ${o.rpcCode} → ${n.rpcCode}`);
      if (o.message !== n.message) w.emit(c, "docs-changed", loc, "JSON-RPC message");
      if (o.retryable !== n.retryable) w.emit(c, "protocol-fact-changed", loc, `retryable ${o.retryable} → ${n.retryable}`);
      if (endsDeclared && o.endsSession !== n.endsSession) w.emit(c, "protocol-fact-changed", loc, `endsSession ${o.endsSession} → ${n.endsSession}`);
    }
  }
  if (!endsDeclared && b.errorCodes.some((e) => e.endsSession)) w.emit(c, "protocol-fact-declared", "ErrorCode", "x-error-codes endsSession declared");
  if (declared("x-limits")) {
    const ol = (a.document["x-limits"] ?? {}) as Record<string, { value?: unknown }>;
    const nl = (b.document["x-limits"] ?? {}) as Record<string, { value?: unknown }>;
    for (const name of new Set([...Object.keys(ol), ...Object.keys(nl)])) {
      if (ol[name]?.value !== nl[name]?.value) w.emit(c, "protocol-fact-changed", `x-limits ${name}`, `${String(ol[name]?.value)} → ${String(nl[name]?.value)}`);
    }
  }
  declared("x-preset-rules");
  declared("x-session-process");
  const stages = declared("x-error-stage");
  const ends = declared("x-ends-event-stream");
  for (const o of a.methods) {
    const n = methodNamed(b, o.name);
    if (!n) continue;
    const mc = { ...c, use: `${o.name} call`, oldExp: o.experimental, newExp: n.experimental };
    if (stages && o.errorStage !== n.errorStage) w.emit(mc, "protocol-fact-changed", `method ${o.name}`, `x-error-stage ${o.errorStage} → ${n.errorStage}`);
    if (ends && o.endsEventStream !== n.endsEventStream) w.emit(mc, "event-stream-end-changed", `method ${o.name}`, `x-ends-event-stream ${o.endsEventStream} → ${n.endsEventStream}`);
  }
}

function verdictOf(hosts: Level, sidecars: Level, docsOnly: boolean): Verdict {
  if (hosts === "break" && sidecars === "break") return "breaking for hosts and sidecars";
  if (hosts === "break") return "breaking for hosts";
  if (sidecars === "break") return "breaking for sidecars";
  if (hosts === "warn" || sidecars === "warn") return "warning";
  return docsOnly ? "docs" : "compatible";
}

const SEVERITY: Verdict[] = ["breaking for hosts and sidecars", "breaking for hosts", "breaking for sidecars", "warning", "compatible", "docs"];

/** Merges the raw changes found through several uses and judges each once. */
export function judge(a: ProtocolModel, b: ProtocolModel, raw: RawChange[]): DiffResult {
  const groups = new Map<string, RawChange[]>();
  for (const r of raw) {
    const k = `${r.rule}\u0000${r.location}\u0000${r.detail}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const changes: Change[] = [];
  for (const list of groups.values()) {
    const first = list[0];
    const spec = rule(first.rule);
    let hosts: Level = "ok";
    let sidecars: Level = "ok";
    const why = new Set<string>();
    const live = list.filter((r) => !r.excused);
    for (const r of live) {
      const jd = spec.judge(r.role, r.facts);
      hosts = maxLevel(hosts, jd.hosts);
      sidecars = maxLevel(sidecars, jd.sidecars);
      why.add(`${r.role === "input" ? "host writes" : "sidecar writes"}: ${jd.why}`);
    }
    const experimental = live.length === 0;
    if (experimental) why.add(`experimental: ${spec.judge(first.role, first.facts).why} — but no promise was given`);
    const uses = [...new Set(list.map((r) => `${r.use} (${WRITER[r.role]})`))].sort();
    const verdict = verdictOf(hosts, sidecars, spec.docsOnly === true);
    changes.push({
      rule: first.rule,
      location: first.location,
      detail: first.detail,
      verdict,
      hosts,
      sidecars,
      experimental,
      why: [...why],
      uses,
      bump: spec.docsOnly ? "none" : hosts === "break" ? "major" : "minor",
    });
  }
  changes.sort(
    (x, y) => SEVERITY.indexOf(x.verdict) - SEVERITY.indexOf(y.verdict) || x.location.localeCompare(y.location) || x.rule.localeCompare(y.rule) || x.detail.localeCompare(y.detail),
  );
  return {
    old: { label: a.source, version: a.version },
    new: { label: b.source, version: b.version },
    changes,
    bump: changes.reduce<Bump>((acc, c) => maxBump(acc, c.bump), "none"),
  };
}

export function diffTexts(oldText: string, newText: string, oldLabel = "old", newLabel = "new"): DiffResult {
  return diffDocuments(parseModel(oldText, oldLabel), parseModel(newText, newLabel));
}
