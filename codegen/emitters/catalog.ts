// The agents catalog (catalog/agents.json): validated against schema/agent-catalog.schema.json,
// its types (and the ACP registry format's) from those schemas, the data as a module the
// sidecar imports, and the README's catalog table between its markers.
import { readFileSync } from "node:fs";
import path from "node:path";
import { compile } from "json-schema-to-typescript";
import { repoRoot, type JsonSchema, type ProtocolModel } from "../model.js";
import { REGENERATE, type Emitter, type GeneratedFile } from "../emitter.js";
import { createAjv } from "./validators.js";

export const CATALOG_FILE = "catalog/agents.json";
export const CATALOG_SCHEMA = "schema/agent-catalog.schema.json";
export const REGISTRY_SCHEMA = "schema/agent-catalog-acp-registry.schema.json";
const README = "README.md";
export const TABLE_BEGIN = "<!-- agents-catalog:begin (generated from catalog/agents.json by npm run codegen) -->";
export const TABLE_END = "<!-- agents-catalog:end -->";

const read = (root: string, file: string): string => readFileSync(path.join(root, file), "utf8");

/** Ajv errors of the catalog file against its schema, as `path: message` lines (none when valid). */
export function catalogErrors(catalog: unknown, schema: JsonSchema): string[] {
  const validate = createAjv().compile(schema);
  if (validate(catalog)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"}: ${e.message}`);
}

/** Semantic rules a schema cannot say: unique ids, placeholders only where the sidecar fills them. */
export function catalogProblems(catalog: { agents: { id: string; lanes: { program: string; args: string[] }[] }[] }): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const a of catalog.agents) {
    if (seen.has(a.id)) out.push(`agents: id ${JSON.stringify(a.id)} appears twice`);
    seen.add(a.id);
    for (const l of a.lanes) {
      for (const s of [l.program, ...l.args]) {
        const bad = s.match(/\$\{(?!node\}|a4aa\})[^}]*\}/);
        if (bad) out.push(`${a.id}: unknown placeholder ${bad[0]} (only \${node} and \${a4aa})`);
      }
    }
  }
  return out;
}

// `{$ref, description}` would make json-schema-to-typescript invent an alias (CatalogEnv1…).
function refsOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(refsOnly);
  if (!value || typeof value !== "object") return value;
  const obj = value as JsonSchema;
  if (typeof obj.$ref === "string") return { $ref: obj.$ref };
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, refsOnly(v)]));
}

async function typesOf(schema: JsonSchema, name: string): Promise<string> {
  const s = refsOnly(schema) as JsonSchema;
  delete s.$schema;
  delete s.$id;
  return compile(s as never, name, {
    bannerComment: "",
    additionalProperties: false,
    strictIndexSignatures: true,
    declareExternallyReferenced: true,
    unreachableDefinitions: true,
    format: true,
    style: { printWidth: 120, singleQuote: false, trailingComma: "all" },
  });
}

const cell = (s: string): string => s.replace(/\|/g, "\\|");

interface TableAgent {
  id: string;
  name: string;
  lanes: { lane: string; driver?: string; dialect?: string; program: string; args: string[] }[];
  install?: string;
  testedVersion?: string;
  ci: boolean;
  bundled?: boolean;
  credentials: { name: string; required: boolean }[];
}

export function catalogTable(agents: TableAgent[]): string {
  const rows = agents.map((a) => {
    const lanes = a.lanes
      .map((l) => {
        const how = l.driver ?? l.dialect;
        const cmd = a.bundled ? "bundled" : [l.program, ...l.args].join(" ");
        return `${l.lane}${how ? ` (${how})` : ""}: \`${cell(cmd)}\``;
      })
      .join("<br>");
    const creds = a.credentials.filter((c) => c.required).map((c) => `\`${c.name}\``).join(", ") || "—";
    const install = a.bundled ? "bundled" : a.install ? `\`${cell(a.install)}\`` : "—";
    return `| \`${a.id}\` | ${cell(a.name)} | ${lanes} | ${install} | ${a.testedVersion ?? "—"} | ${a.ci ? "✓" : ""} | ${creds} |`;
  });
  return ["| id | agent | lanes, in order of preference | install | tested | CI | credentials needed |", "| --- | --- | --- | --- | --- | :-: | --- |", ...rows].join("\n");
}

/** The README with the text between the catalog markers replaced by the table. */
export function readmeWithTable(readme: string, table: string): string {
  const b = readme.indexOf(TABLE_BEGIN);
  const e = readme.indexOf(TABLE_END);
  if (b < 0 || e < b) throw new Error(`${README}: the markers ${TABLE_BEGIN} … ${TABLE_END} are missing`);
  return `${readme.slice(0, b + TABLE_BEGIN.length)}\n${table}\n${readme.slice(e)}`;
}

export const catalogEmitter: Emitter = {
  name: "catalog",
  async emit(_model: ProtocolModel): Promise<GeneratedFile[]> {
    const catalogSchema = JSON.parse(read(repoRoot, CATALOG_SCHEMA)) as JsonSchema;
    const registrySchema = JSON.parse(read(repoRoot, REGISTRY_SCHEMA)) as JsonSchema;
    const catalog = JSON.parse(read(repoRoot, CATALOG_FILE));
    const problems = [...catalogErrors(catalog, catalogSchema), ...catalogProblems(catalog)];
    if (problems.length) throw new Error(`${CATALOG_FILE} does not follow ${CATALOG_SCHEMA}:\n  ${problems.join("\n  ")}`);
    createAjv().compile(registrySchema); // a broken registry schema fails here, not at serve time
    const head = `// Code generated by a4aa codegen from ${CATALOG_SCHEMA}, ${REGISTRY_SCHEMA} and ${CATALOG_FILE}. DO NOT EDIT.\n// Regenerate with: ${REGENERATE}\n`;
    const types = `${head}\n${await typesOf(catalogSchema, "AgentCatalog")}\n${await typesOf(registrySchema, "AcpRegistry")}`;
    const { $schema: _drop, ...data } = catalog as Record<string, unknown>;
    const module = `${head}
import type { AgentCatalog } from "./catalog-types.js";

/** The built-in agents catalog (${CATALOG_FILE}), validated at codegen time. */
export const BUILTIN_CATALOG: AgentCatalog = ${JSON.stringify(data, null, 2)};

/** ${REGISTRY_SCHEMA}: what \`a4aa serve --registry FILE\` checks a registry document against. */
export const ACP_REGISTRY_SCHEMA: Record<string, unknown> = ${JSON.stringify(registrySchema, null, 2)};
`;
    const readme = readmeWithTable(read(repoRoot, README), catalogTable(catalog.agents as TableAgent[]));
    return [
      { path: "generated/ts/catalog-types.ts", content: types },
      { path: "generated/ts/catalog.ts", content: module },
      { path: README, content: readme },
    ];
  },
};
