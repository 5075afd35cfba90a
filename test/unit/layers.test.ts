// The house rules of ../shared/architecture.md, checked on the source: data flows one way
// through the layers, nothing lower imports anything higher, and only the command line
// and the server's owner touch the sidecar's stdout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const src = path.join(root, "src");

/**
 * What each area of src/ may import (besides itself). `errors`, `log` are leaves, and so is
 * generated/ (the schema's types, validators, errors and limits). An entry may also name one
 * module: `clients/ts/session-state` (how a SessionState's selectors are read, shared by the
 * ACP lane and every host).
 */
const ALLOWED: Record<string, string[]> = {
  transport: ["errors", "log", "generated"],
  env: ["errors", "log", "generated"],
  supervise: ["env", "errors", "log", "generated"],
  lanes: ["supervise", "env", "transport", "errors", "log", "generated", "clients/ts/session-state"],
  // The agents catalog (1.2): agent id → AgentSpec, installed programs, --version probes.
  catalog: ["supervise", "env", "errors", "log", "generated", "version"],
  sessions: ["telemetry", "custody", "sandbox", "lanes", "catalog", "journal", "supervise", "env", "transport", "errors", "log", "generated"],
  // R-CUSTODY-1: the egress proxy and what an open under custody changes (catalog's modelApi);
  // it counts what it carries into the facts (telemetry).
  custody: ["catalog", "telemetry", "errors", "log", "generated"],
  // R-SANDBOX-1: bubblewrap around a spawn (supervise's SpawnWrapper), the model route.
  sandbox: ["supervise", "errors", "log", "generated"],
  // The recorder parses agent lines with the one depth-checked parser (transport).
  journal: ["supervise", "env", "transport", "errors", "log", "generated"],
  replay: ["journal", "errors", "log", "generated"],
  server: ["telemetry", "sessions", "transport", "errors", "log", "generated"],
  // §15: the ws/wss/unix listeners hand authenticated links to the server.
  listen: ["telemetry", "server", "transport", "errors", "log", "generated"],
  examples: ["transport", "errors", "log", "generated"],
  // The schema tooling ships with the command line but never imports it; it reads the one
  // document model, which depends on nothing.
  "schema-diff": ["openrpc"],
  openrpc: [],
  // R-REMOTE-8: the facts the sidecar reports and their exporters (Prometheus; OTLP, whose
  // spans need the protocol's types and log their failed sends); the leaves only.
  telemetry: ["errors", "log", "generated"],
  errors: ["generated"],
  log: [],
  version: [],
  // The package's front door (`import … from "a4aa"`): the generated protocol only.
  index: ["generated"],
  // `a4aa run` is a host like any other: it knows the TS client and generated/ only (plus
  // the command line's own argument parser).
  "cli/run": ["clients", "generated", "cli/args"],
  // The rest of the command line is the top: it wires everything together.
  cli: ["cli/run", "clients", "listen", "telemetry", "custody", "sandbox", "server", "sessions", "catalog", "journal", "replay", "lanes", "supervise", "env", "transport", "schema-diff", "openrpc", "examples", "errors", "log", "generated", "version"],
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

/** The area of a path under the repository: `src/<area>/…` → area (`src/cli/run/…` → `cli/run`), `generated/…` → generated. */
function areaOf(abs: string): string {
  const rel = path.relative(root, abs).split(path.sep);
  if (rel[0] === "generated") return "generated";
  if (rel[0] !== "src") return rel[0];
  if (rel[1] === "cli" && rel[2] === "run" && rel.length > 3) return "cli/run";
  return rel[1].replace(/\.(ts|js)$/, "");
}

/** Relative specifiers of static imports/exports and dynamic import() calls. */
function relativeImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm)) out.push(m[1]);
  return out;
}

test("relativeImports finds static, type-only, side-effect and dynamic imports", () => {
  const text = [
    'import { a } from "../transport/x.js";',
    'import type { B } from "../../generated/ts/types.js";',
    'import "./side.js";',
    'const m = await import("../server/server.js");',
    'export { c } from "./c.js";',
    'import { d } from "node:fs";',
  ].join("\n");
  assert.deepEqual(relativeImports(text), ["../transport/x.js", "../../generated/ts/types.js", "./side.js", "../server/server.js", "./c.js"]);
});

test("no module of src/ imports a layer above its own (architecture.md)", () => {
  const violations: string[] = [];
  const files = tsFiles(src);
  assert.ok(files.length > 50, `only ${files.length} source files found under ${src}`);
  for (const file of files) {
    const from = areaOf(file);
    const allowed = ALLOWED[from];
    if (allowed === undefined) {
      violations.push(`${path.relative(root, file)}: its area ${from} has no entry in ALLOWED`);
      continue;
    }
    for (const spec of relativeImports(readFileSync(file, "utf8"))) {
      const target = path.resolve(path.dirname(file), spec);
      const to = areaOf(target);
      if (to === from) continue;
      // A single module: `cli/args` (under src/) or `clients/ts/session-state` (under the root).
      const sub = path.relative(target.startsWith(src + path.sep) ? src : root, target).replace(/\.(ts|js)$/, "");
      if (allowed.includes(to) || allowed.includes(sub)) continue;
      violations.push(`${path.relative(root, file)} (${from}) imports ${spec} (${to})`);
    }
  }
  assert.deepEqual(violations, [], `imports against the layering:\n${violations.join("\n")}`);
});

test("the schema tooling imports nothing of the command line, and the command line reaches it only through its front door", () => {
  const offenders: string[] = [];
  for (const file of tsFiles(src)) {
    const from = path.relative(src, file).split(path.sep);
    for (const spec of relativeImports(readFileSync(file, "utf8"))) {
      const to = path.relative(src, path.resolve(path.dirname(file), spec)).split(path.sep);
      if (from[0] === "schema-diff" && to[0] === "cli") offenders.push(`${path.relative(root, file)} imports ${spec}`);
      if (from[0] !== "schema-diff" && to[0] === "schema-diff" && to[1] !== "index.js") offenders.push(`${path.relative(root, file)} imports ${spec} (use src/schema-diff/index.ts)`);
    }
  }
  assert.deepEqual(offenders, []);
});

test("only the command line writes to the sidecar's own stdout: lanes, sessions and the server never touch it", () => {
  const offenders = tsFiles(src)
    .filter((f) => ["transport", "env", "supervise", "lanes", "sessions", "server"].includes(areaOf(f)))
    .filter((f) => /\bprocess\.stdout\b/.test(readFileSync(f, "utf8")))
    .map((f) => path.relative(root, f));
  assert.deepEqual(offenders, []);
});
