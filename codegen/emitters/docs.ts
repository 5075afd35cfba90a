// docs/protocol.md: the protocol reference, generated from the schema with the examples of
// schema/examples/ embedded, so the reference, the fixtures and the schema cannot drift.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot, type JsonSchema, type MethodModel, type ProtocolModel } from "../model.js";
import { REGENERATE, type Emitter } from "../emitter.js";

export const EXAMPLES_DIR = "schema/examples";

const REF = /^#\/(?:\$defs|components\/schemas)\/([A-Za-z0-9_]+)$/;

function refTarget(s: JsonSchema | undefined): string | undefined {
  return typeof s?.$ref === "string" ? REF.exec(s.$ref)?.[1] : undefined;
}

const anchor = (name: string) => name.toLowerCase().replace(/[^a-z0-9-]/g, "");
// GitHub's heading anchors: lower case, punctuation dropped ("Method `session/open`" → method-sessionopen).
const methodAnchor = (name: string) => `method-${anchor(name)}`;
const link = (name: string) => `[\`${name}\`](#${anchor(name)})`;
/** One line, safe inside a table cell. */
const cell = (text: unknown) => (typeof text === "string" ? text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|") : "");
const json = (v: unknown) => JSON.stringify(v);

const CONSTRAINTS: [string, string][] = [
  ["minLength", "min length"],
  ["maxLength", "max length"],
  ["minimum", "≥"],
  ["exclusiveMinimum", ">"],
  ["maximum", "≤"],
  ["exclusiveMaximum", "<"],
  ["minItems", "min items"],
  ["maxItems", "max items"],
  ["pattern", "pattern"],
  ["format", "format"],
];

/** A schema as a short type expression, linking named types. */
export function typeExpr(s: JsonSchema | undefined): string {
  if (!s) return "any";
  const target = refTarget(s);
  if (target) return link(target);
  if ("const" in s) return `\`${json(s.const)}\``;
  if (Array.isArray(s.enum)) return s.enum.map((v) => `\`${json(v)}\``).join(" \\| ");
  const union = (s.oneOf ?? s.anyOf) as JsonSchema[] | undefined;
  if (union) return union.map(typeExpr).join(" \\| ");
  let base: string;
  if (Array.isArray(s.type)) base = (s.type as string[]).join(" \\| ");
  else if (s.type === "array") base = `${typeExpr(s.items as JsonSchema)}[]`;
  else if (s.type === "object" && s.additionalProperties && typeof s.additionalProperties === "object") {
    base = `{ [name]: ${typeExpr(s.additionalProperties as JsonSchema)} }`;
  } else base = typeof s.type === "string" ? s.type : "any";
  const c = CONSTRAINTS.filter(([k]) => s[k] !== undefined).map(([k, label]) => `${label} ${typeof s[k] === "string" ? `\`${s[k] as string}\`` : String(s[k])}`);
  return c.length ? `${base} (${c.join(", ")})` : base;
}

interface Example {
  file: string;
  valid: boolean;
  text: string;
  value: unknown;
}

function readExamples(typeName: string, root: string): Example[] {
  const dir = path.join(root, EXAMPLES_DIR, typeName);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort((a, b) => Number(b.startsWith("valid-")) - Number(a.startsWith("valid-")) || a.localeCompare(b))
    .map((file) => {
      const text = readFileSync(path.join(dir, file), "utf8").trimEnd();
      return { file, valid: file.startsWith("valid-"), text, value: JSON.parse(text) as unknown };
    });
}

const block = (text: string) => ["```json", text, "```"].join("\n");

/** Which message parts reach each type, and who writes them. */
function usesOf(model: ProtocolModel): Map<string, Set<string>> {
  const uses = new Map<string, Set<string>>();
  const walk = (v: unknown, use: string, seen: Set<string>): void => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x, use, seen));
    if (!v || typeof v !== "object") return;
    const t = refTarget(v as JsonSchema);
    if (t && !seen.has(t)) {
      seen.add(t);
      uses.set(t, (uses.get(t) ?? new Set()).add(use));
      walk(model.types[t], use, seen);
    }
    for (const [k, x] of Object.entries(v)) if (k !== "$ref") walk(x, use, seen);
  };
  for (const m of model.methods) {
    const h2s = m.direction === "hostToSidecar";
    walk({ $ref: `#/$defs/${m.paramsType}` }, `\`${m.name}\` params (${h2s ? "host" : "sidecar"} writes)`, new Set());
    if (m.resultType) walk({ $ref: `#/$defs/${m.resultType}` }, `\`${m.name}\` result (${h2s ? "sidecar" : "host"} writes)`, new Set());
  }
  walk({ $ref: "#/$defs/ErrorData" }, "error `data` (sidecar writes)", new Set());
  return uses;
}

function directionText(m: MethodModel): string {
  const who = m.direction === "hostToSidecar" ? "host → sidecar" : "sidecar → host";
  return `${who} ${m.notification ? "notification" : "request"}`;
}

function methodSection(model: ProtocolModel, m: MethodModel, root: string): string[] {
  const raw = (model.document.methods as JsonSchema[]).find((x) => x.name === m.name)!;
  const out = [`### Method \`${m.name}\``, "", `*${directionText(m)}*${m.experimental ? " · **experimental**" : ""}. ${m.summary}`, ""];
  if (m.description) out.push(m.description, "");
  const params = raw.params as JsonSchema[];
  out.push(`**Params** (${link(m.paramsType)}):${params.length ? "" : " none (`{}`)."}`, "");
  if (params.length) {
    out.push("| name | type | required | description |", "| --- | --- | --- | --- |");
    for (const p of params) {
      out.push(`| \`${p.name as string}\` | ${typeExpr(p.schema as JsonSchema)} | ${p.required === true ? "yes" : "no"} | ${cell(p.description)}${p["x-experimental"] === true ? " *(experimental)*" : ""} |`);
    }
    out.push("");
  }
  if (m.resultType) out.push(`**Result**: ${link(m.resultType)}`, "");
  const errors = ((raw.errors ?? []) as JsonSchema[]).map((e) => {
    const name = typeof e.$ref === "string" ? e.$ref.split("/").pop()! : String(e.message);
    const err = model.errors.find((x) => x.name === name);
    return `\`${String(err?.code ?? e.code)}\` ${name}`;
  });
  if (errors.length) out.push(`**Errors**: ${errors.join(", ")} (see [Errors](#errors))${m.errorStage ? `; its own errors have \`stage\` \`${m.errorStage}\`` : ""}.`, "");
  if (m.endsEventStream) out.push("Its success ends the session's `session/event` stream (`x-ends-event-stream`): clients close the session's event stream then.", "");
  const params0 = readExamples(m.paramsType, root).find((e) => e.valid);
  const result0 = m.resultType ? readExamples(m.resultType, root).find((e) => e.valid) : undefined;
  if (params0) {
    const msg = m.notification
      ? { jsonrpc: "2.0", method: m.name, params: params0.value }
      : { jsonrpc: "2.0", id: 1, method: m.name, params: params0.value };
    out.push(`Example ${m.notification ? "notification" : "request"} (params from \`${EXAMPLES_DIR}/${m.paramsType}/${params0.file}\`):`, "", block(JSON.stringify(msg, null, 2)), "");
  }
  if (result0) {
    out.push(`Example response (result from \`${EXAMPLES_DIR}/${m.resultType}/${result0.file}\`):`, "", block(JSON.stringify({ jsonrpc: "2.0", id: 1, result: result0.value }, null, 2)), "");
  }
  return out;
}

/** Table rows for fields; an inline object's own fields follow it as `field.sub` (`field[].sub` in arrays). */
function fieldRows(entries: [string, JsonSchema][], required: Set<string>, prefix: string): string[] {
  const rows: string[] = [];
  for (const [k, p] of entries) {
    rows.push(`| \`${prefix}${k}\` | ${typeExpr(p)} | ${required.has(k) ? "yes" : "no"} | ${cell(p.description)}${p["x-experimental"] === true ? " *(experimental)*" : ""} |`);
    const inner = p.type === "array" && p.items && !refTarget(p.items as JsonSchema) ? (p.items as JsonSchema) : p;
    const props = inner.properties as Record<string, JsonSchema> | undefined;
    if (props && !refTarget(inner)) {
      rows.push(...fieldRows(Object.entries(props), new Set((inner.required ?? []) as string[]), `${prefix}${k}${inner === p ? "" : "[]"}.`));
    }
  }
  return rows;
}

function typeSection(model: ProtocolModel, name: string, uses: Set<string> | undefined, root: string): string[] {
  const s = model.types[name];
  const out = [`### \`${name}\``, ""];
  if (s["x-experimental"] === true) out.push("**Experimental**: not covered by the compatibility promise.", "");
  const paramsOf = model.methods.find((m) => m.paramsType === name);
  if (paramsOf) out.push(`The params of [\`${paramsOf.name}\`](#${methodAnchor(paramsOf.name)}) (${directionText(paramsOf)}).`, "");
  else if (typeof s.description === "string") out.push(s.description, "");
  if (uses?.size) out.push(`Used in: ${[...uses].join(", ")}.`, "");
  else if (!paramsOf) out.push("Not used by any message directly.", "");

  const union = (s.oneOf ?? s.anyOf) as JsonSchema[] | undefined;
  const props = s.properties as Record<string, JsonSchema> | undefined;
  if (union) {
    const disc = (s.discriminator as JsonSchema | undefined)?.propertyName as string | undefined;
    if (disc) {
      out.push(`One of the following, told apart by \`${disc}\`:`, "", `| \`${disc}\` | type |`, "| --- | --- |");
      for (const b of union) {
        const t = refTarget(b);
        const tag = t ? ((model.types[t].properties as Record<string, JsonSchema> | undefined)?.[disc]?.const ?? "?") : "?";
        out.push(`| \`${json(tag)}\` | ${typeExpr(b)} |`);
      }
    } else {
      out.push("One of:", "");
      for (const b of union) out.push(`- ${typeExpr(b)}`);
    }
    out.push("");
  } else if (Array.isArray(s.enum)) {
    out.push("One of these values:", "", ...s.enum.map((v) => `- \`${json(v)}\``), "");
  } else if (props || s.allOf) {
    const mixins = ((s.allOf ?? []) as JsonSchema[]).map(refTarget).filter((x): x is string => !!x);
    const closed = s.additionalProperties === false || s.unevaluatedProperties === false;
    const sidecarWrites = [...(uses ?? [])].some((u) => u.endsWith("(sidecar writes)"));
    out.push(
      closed
        ? "An object; unknown fields are rejected."
        : sidecarWrites
          ? "An object; it may gain optional fields in a minor version, and hosts ignore fields they do not know."
          : "An object.",
      "",
    );
    if (mixins.length) out.push(`It has every field of ${mixins.map(link).join(", ")}, and:`, "");
    const required = new Set((s.required ?? []) as string[]);
    const entries = Object.entries(props ?? {});
    if (entries.length) {
      out.push("| field | type | required | description |", "| --- | --- | --- | --- |");
      out.push(...fieldRows(entries, required, ""));
      out.push("");
    } else if (!mixins.length) out.push("No fields.", "");
  } else {
    out.push(`Type: ${typeExpr(s)}.`, "");
  }
  for (const e of readExamples(name, root)) {
    out.push(`${e.valid ? "Valid" : "Invalid"} (\`${e.file}\`):`, "", block(e.text), "");
  }
  return out;
}

export function renderProtocolDoc(model: ProtocolModel, root = repoRoot): string {
  const info = model.document.info as JsonSchema;
  const uses = usesOf(model);
  const paramsTypes = new Set(model.methods.map((m) => m.paramsType));
  const lines: string[] = [
    `<!-- Code generated by a4aa codegen from ${model.source} and ${EXAMPLES_DIR}/. DO NOT EDIT. -->`,
    `<!-- Regenerate with: ${REGENERATE} -->`,
    "",
    `# ${model.protocol} protocol reference`,
    "",
    `Version ${model.version} of \`${model.source}\`, the single source of truth; this page is generated from it. ` +
      `Changes are listed in [schema/CHANGELOG.md](../schema/CHANGELOG.md); \`npm run schema:diff -- <git-ref>\` shows who a change breaks.`,
    "",
    info.description as string,
    "",
    "- [Methods](#methods)",
    "- [Errors](#errors)",
    "- [Types](#types)",
    "",
    "## Methods",
    "",
    "| method | direction | params | result |",
    "| --- | --- | --- | --- |",
    ...model.methods.map(
      (m) => `| [\`${m.name}\`](#${methodAnchor(m.name)}) | ${directionText(m)} | ${link(m.paramsType)} | ${m.resultType ? link(m.resultType) : "—"} |`,
    ),
    "",
  ];
  for (const m of model.methods) lines.push(...methodSection(model, m, root));

  lines.push(
    "## Errors",
    "",
    "Every failure is a JSON-RPC error whose `data` is an [`ErrorData`](#errordata); its `code` is an [`ErrorCode`](#errorcode).",
    "",
    "| error | code | message | data |",
    "| --- | --- | --- | --- |",
    ...model.errors.map((e) => `| ${e.name} | \`${String(e.code)}\` | ${cell(e.message)} | ${cell(e.data)} |`),
    "",
    "Each [`ErrorCode`](#errorcode) answers with one of them (`x-error-codes`); `retryable` is its default:",
    "",
    "| `data.code` | JSON-RPC code | message | retryable |",
    "| --- | --- | --- | --- |",
    ...model.errorCodes.map((c) => `| \`${c.code}\` | \`${c.rpcCode}\` ${c.rpcError} | ${cell(c.message)} | ${c.retryable ? "yes" : "no"} |`),
    "",
    "## Types",
    "",
    "Named types of `components.schemas`, then the params object of each method.",
    "",
  );
  for (const name of model.typeNames) {
    lines.push(...typeSection(model, name, paramsTypes.has(name) ? undefined : uses.get(name), root));
  }
  return `${lines.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`;
}

export const docsEmitter: Emitter = {
  name: "docs",
  emit(model: ProtocolModel) {
    return [{ path: "docs/protocol.md", content: renderProtocolDoc(model) }];
  },
};
