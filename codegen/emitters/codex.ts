// Codex app-server types for the rpc lane, generated from the schema the pinned Codex
// binary printed (scripts/capture-codex-schema.sh vendors it as data, so codegen never
// needs the binary). Upgrading Codex shows up as a diff of schema/vendor/codex-app-server/
// and generated/codex/.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { compile } from "json-schema-to-typescript";
import { repoRoot, type JsonSchema, type ProtocolModel } from "../model.js";
import { header, type Emitter } from "../emitter.js";

const BUNDLE = "codex_app_server_protocol.schemas.json";

/** The messages the lane sends, reads or answers: `Name` at the top, `v2/Name` under definitions.v2. */
export const CODEX_USED = [
  "InitializeParams",
  "InitializeResponse",
  "v2/ThreadStartParams",
  "v2/ThreadStartResponse",
  "v2/ThreadResumeParams",
  "v2/ThreadResumeResponse",
  "v2/TurnStartParams",
  "v2/TurnStartResponse",
  "v2/TurnInterruptParams",
  "v2/TurnInterruptResponse",
  "v2/TurnStartedNotification",
  "v2/TurnCompletedNotification",
  "v2/ItemStartedNotification",
  "v2/ItemCompletedNotification",
  "v2/AgentMessageDeltaNotification",
  "v2/ReasoningTextDeltaNotification",
  "v2/ReasoningSummaryTextDeltaNotification",
  "v2/TurnPlanUpdatedNotification",
  "v2/ThreadTokenUsageUpdatedNotification",
  "v2/ThreadStatusChangedNotification",
  "v2/AccountRateLimitsUpdatedNotification",
  "v2/ErrorNotification",
  "v2/ServerRequestResolvedNotification",
  "CommandExecutionRequestApprovalParams",
  "CommandExecutionRequestApprovalResponse",
  "FileChangeRequestApprovalParams",
  "FileChangeRequestApprovalResponse",
] as const;

/** The pinned Codex version: the one test/agents installs and the lane is tested against. */
export function pinnedCodexVersion(root = repoRoot): string {
  const pkg = JSON.parse(readFileSync(path.join(root, "test/agents/package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const v = pkg.dependencies?.["@openai/codex"];
  if (!v) throw new Error("codex: test/agents/package.json does not pin @openai/codex");
  return v;
}

function loadBundle(version: string): { source: string; schema: JsonSchema } {
  const source = `schema/vendor/codex-app-server/${version}/${BUNDLE}`;
  const file = path.join(repoRoot, source);
  if (!existsSync(file)) {
    throw new Error(`codex: ${source} is missing; run scripts/capture-codex-schema.sh with the pinned codex ${version}`);
  }
  return { source, schema: JSON.parse(readFileSync(file, "utf8")) as JsonSchema };
}

// json-schema-to-typescript turns `{$ref, description}` into a fresh alias (Foo1, …); keep
// only the ref so every use points at the one named type.
function dropRefSiblings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropRefSiblings);
  if (value && typeof value === "object") {
    const obj = value as JsonSchema;
    if (typeof obj.$ref === "string") return { $ref: obj.$ref };
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(obj)) if (k !== "$schema") out[k] = dropRefSiblings(v);
    return out;
  }
  return value;
}

/** The `method` literals of a oneOf of `{method: {enum: [m]}, …}` message shapes, sorted. */
export function methodNames(union: JsonSchema | undefined): string[] {
  const names = new Set<string>();
  for (const alt of (union?.oneOf as JsonSchema[] | undefined) ?? []) {
    const m = (alt.properties as JsonSchema | undefined)?.method as JsonSchema | undefined;
    for (const e of (m?.enum as unknown[] | undefined) ?? []) if (typeof e === "string") names.add(e);
  }
  return [...names].sort();
}

function unionType(name: string, doc: string, values: string[]): string {
  return `/** ${doc} */\nexport type ${name} =\n${values.map((v) => `  | ${JSON.stringify(v)}`).join("\n")};\n`;
}

const ROOT = "CodexAppServerTypes";

async function types(schema: JsonSchema): Promise<string> {
  const defs = dropRefSiblings(schema.definitions) as JsonSchema;
  const ref = (n: string) => `#/definitions/${n}`;
  const root: JsonSchema = {
    title: ROOT,
    definitions: defs,
    type: "object",
    properties: Object.fromEntries(CODEX_USED.map((n) => [n.replace(/^v2\//, ""), { $ref: ref(n) }])),
    additionalProperties: false,
  };
  const out = await compile(root as never, ROOT, {
    bannerComment: "",
    additionalProperties: false,
    strictIndexSignatures: true,
    declareExternallyReferenced: true,
    unreachableDefinitions: false,
    enableConstEnums: false,
    format: true,
    style: { printWidth: 120, singleQuote: false, trailingComma: "all" },
  });
  return out
    .replace(new RegExp(`export interface ${ROOT} \\{[\\s\\S]*?\\n\\}\\n`), "")
    .replace(/\n \*\n \* This interface was referenced by `[^`]+`'s JSON-Schema\n \* via the `definition` "[^"]+"\./g, "")
    .replace(/\/\*\*\n \* This interface was referenced by `[^`]+`'s JSON-Schema\n \* via the `definition` "[^"]+"\.\n \*\/\n/g, "");
}

export const codexEmitter: Emitter = {
  name: "codex",
  async emit(model: ProtocolModel) {
    const version = pinnedCodexVersion();
    const { source, schema } = loadBundle(version);
    const head = header({ ...model, source }, "//");
    const defs = schema.definitions as JsonSchema;
    const methods =
      `${head}\n` +
      `/** The Codex version whose schema this is. */\nexport const CODEX_APP_SERVER_VERSION = ${JSON.stringify(version)};\n\n` +
      unionType("ServerNotificationMethod", "Every notification the app-server may send.", methodNames(defs.ServerNotification as JsonSchema)) +
      "\n" +
      unionType("ServerRequestMethod", "Every request the app-server may send to its client.", methodNames(defs.ServerRequest as JsonSchema)) +
      "\n" +
      unionType("ClientRequestMethod", "Every request the app-server answers.", methodNames(defs.ClientRequest as JsonSchema)) +
      "\n" +
      unionType("ClientNotificationMethod", "Every notification the app-server accepts.", methodNames(defs.ClientNotification as JsonSchema));
    return [
      { path: "generated/codex/types.ts", content: `${head}/* eslint-disable */\n\n${await types(schema)}` },
      { path: "generated/codex/methods.ts", content: methods },
    ];
  },
};
