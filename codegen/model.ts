// Where the generators find the protocol model: the one model of src/openrpc/model.ts (the
// breaking-change gate judges the same one), loaded from the repository's schema.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { parseModel, type ProtocolModel, type Schema } from "../src/openrpc/model.js";

export { bundleSchema, pascalCase, rewriteRefs } from "../src/openrpc/model.js";
export type { Direction, ErrorCodeModel, MethodModel, ProtocolModel, RpcErrorModel } from "../src/openrpc/model.js";
export type JsonSchema = Schema;

/** The repository root, from the sources (codegen/) or from the build (dist/codegen/). */
export const repoRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRoot(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, "schema", "a4aa.v1.openrpc.json"))) return d;
    if (path.dirname(d) === d) return path.resolve(dir, "..");
  }
}
export const defaultSource = "schema/a4aa.v1.openrpc.json";

export function loadModel(source = defaultSource, text?: string): ProtocolModel {
  return parseModel(text ?? readFileSync(path.join(repoRoot, source), "utf8"), source);
}
