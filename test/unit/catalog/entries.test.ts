// The catalog file itself: every entry validates against schema/agent-catalog.schema.json,
// names only lanes, drivers and dialects a4aa.v1 has, and covers what §10 says it must.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { catalogErrors, catalogProblems, CATALOG_FILE, CATALOG_SCHEMA } from "../../../codegen/emitters/catalog.js";
import { repoRoot } from "../../../codegen/model.js";
import { BUILTIN_CATALOG } from "../../../generated/ts/catalog.js";
import { builtinEntries, expand, packageRoot } from "../../../src/catalog/entries.js";

const read = (f: string) => JSON.parse(readFileSync(path.join(repoRoot, f), "utf8"));
const schema = read(CATALOG_SCHEMA);
const openrpc = read("schema/a4aa.v1.openrpc.json").components.schemas;
const catalog = read(CATALOG_FILE);

test("every catalog entry validates against the catalog schema, ids are unique", () => {
  assert.deepEqual(catalogErrors(catalog, schema), []);
  assert.deepEqual(catalogProblems(catalog), []);
  for (const a of catalog.agents) assert.deepEqual(catalogErrors({ version: 1, agents: [a] }, schema), [], a.id);
});

test("the schema catches a broken entry: a cli lane without driver, a bad credential name", () => {
  const bad = structuredClone(catalog);
  delete bad.agents[1].lanes[0].driver;
  assert.notDeepEqual(catalogErrors(bad, schema), []);
  const bad2 = structuredClone(catalog);
  bad2.agents[1].credentials.push({ name: "NOT-A-NAME", required: false, description: "x" });
  assert.notDeepEqual(catalogErrors(bad2, schema), []);
  const dup = structuredClone(catalog);
  dup.agents.push(dup.agents[0]);
  assert.match(catalogProblems(dup).join(), /appears twice/);
});

test("lane, driver and dialect names are a4aa.v1's", () => {
  const lane = schema.$defs.CatalogLane.properties;
  assert.deepEqual(lane.lane.enum, openrpc.Lane.enum);
  assert.deepEqual(lane.driver.enum, openrpc.CliDriver.enum);
  assert.deepEqual(lane.dialect.enum, openrpc.RpcDialect.enum);
});

test("the generated module holds the catalog file's data", () => {
  const { $schema: _, ...data } = catalog;
  assert.deepEqual(BUILTIN_CATALOG, data);
});

const lanes = BUILTIN_CATALOG.agents.flatMap((a) => a.lanes.map((l) => ({ id: a.id, ...l, line: [l.program, ...l.args].join(" ") })));

test("R-AGENT: the built-in catalog covers every CLI driver, codex app-server and the ACP command lines people use", () => {
  for (const d of openrpc.CliDriver.enum.filter((d: string) => d !== "generic")) {
    assert.ok(lanes.some((l) => l.lane === "cli" && l.driver === d), `a cli lane with driver ${d}`);
  }
  assert.ok(lanes.some((l) => l.lane === "rpc" && l.dialect === "codexAppServer" && l.line === "codex app-server"));
  for (const line of [
    "gemini --acp",
    "claude-agent-acp",
    "codex-acp",
    "qwen --acp",
    "opencode acp",
    "cursor-agent acp",
    "copilot --acp --stdio",
    "kimi acp",
    "goose acp",
    "droid exec --output-format acp",
  ]) {
    assert.ok(lanes.some((l) => l.lane === "acp" && l.line === line), `an acp lane ${line}`);
  }
});

test("the example agent is bundled and always installed; CI-run agents carry their pinned version", () => {
  const ex = builtinEntries().find((e) => e.agent.id === "example")!;
  assert.equal(ex.agent.bundled, true);
  assert.equal(expand(ex.agent.lanes[0].program), process.execPath);
  assert.equal(expand(ex.agent.lanes[0].args[0]), path.join(packageRoot(), "dist/src/examples/example-agent.js"));
  const pinned = read("test/agents/package.json").dependencies as Record<string, string>;
  for (const a of BUILTIN_CATALOG.agents.filter((a) => a.ci && !a.bundled)) {
    assert.ok(a.package && pinned[a.package.name], `${a.id}: its package is pinned in test/agents/package.json`);
    assert.equal(a.testedVersion, pinned[a.package!.name], `${a.id}: testedVersion is the pinned version`);
    assert.match(a.install!, new RegExp(`${a.package!.name.replace(/[/@.]/g, "\\$&")}@${a.testedVersion!.replace(/\./g, "\\.")}`));
  }
  assert.deepEqual(
    BUILTIN_CATALOG.agents.filter((a) => a.ci).map((a) => a.id).sort(),
    ["claude-agent-acp", "claude-code", "codex", "codex-acp", "example", "gemini", "opencode", "qwen"],
  );
});
