// R-AGENT-4: ACP registry documents → catalog entries; bad files name the file and the field.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { RegistryFileError, platformKey, registryAgentToCatalog, registryEntries } from "../../../src/catalog/acp-registry.js";
import { scratchDir } from "../../helpers/tmp.js";

const agent = (distribution: Record<string, unknown>, id = "x-agent") => ({ id, name: "X", version: "1.4.0", description: "an agent", distribution: distribution as never });

test("R-AGENT-4: npx → npx --yes <package>@<version> <args…>, uvx likewise, env → set literals", () => {
  const a = registryAgentToCatalog(agent({ npx: { package: "@x/acp", args: ["--acp"], env: { X_MODE: "headless" } }, uvx: { package: "x-acp" } }))!;
  assert.deepEqual(a.lanes[0], { lane: "acp", program: "npx", args: ["--yes", "@x/acp@1.4.0", "--acp"], settings: { X_MODE: "headless" } });
  assert.deepEqual(a.lanes[1], { lane: "acp", program: "uvx", args: ["x-acp@1.4.0"] });
  const pinned = registryAgentToCatalog(agent({ npx: { package: "@x/acp@1.3.9" } }))!;
  assert.deepEqual(pinned.lanes[0].args, ["--yes", "@x/acp@1.3.9"], "a package that pins its version keeps it");
});

test("R-AGENT-4: binary → this platform's cmd by name (on PATH), first; other platforms only → no entry", () => {
  const a = registryAgentToCatalog(agent({ binary: { [platformKey()]: { archive: "https://example.invalid/x.tgz", cmd: "./x-agent", args: ["acp"] } }, npx: { package: "x" } }))!;
  assert.deepEqual(a.lanes[0], { lane: "acp", program: "x-agent", args: ["acp"] });
  assert.equal(a.lanes[1].program, "npx");
  assert.equal(registryAgentToCatalog(agent({ binary: { "plan9-mips": { archive: "a", cmd: "x" } } })), null);
});

function file(doc: unknown): string {
  const f = path.join(scratchDir("a4aa-registry"), "registry.json");
  writeFileSync(f, typeof doc === "string" ? doc : JSON.stringify(doc));
  return f;
}

test("R-AGENT-4: a malformed registry file is an error naming the file and the field", () => {
  const cases: [unknown, RegExp][] = [
    ["{not json", /not valid JSON/],
    [{ agents: [] }, /: version: must have required property 'version'/],
    [{ version: "1", agents: [{ id: "a", name: "A", version: "1", description: "d" }] }, /agents\[0\]\.distribution: must have required property/],
    [{ version: "1", agents: [agent({ npx: { args: [] } })] }, /agents\[0\]\.distribution\.npx\.package/],
    [{ version: "1", agents: [agent({ npx: { package: "p", env: { X: 1 } } })] }, /agents\[0\]\.distribution\.npx\.env\.X: must be string/],
  ];
  for (const [doc, msg] of cases) {
    const f = file(doc);
    assert.throws(() => registryEntries([f], new Set(), () => undefined), (e: unknown) => {
      assert.ok(e instanceof RegistryFileError);
      assert.ok(e.message.includes(f), e.message);
      assert.match(e.message, msg);
      return true;
    });
  }
  assert.throws(() => registryEntries(["/no/such/registry.json"], new Set(), () => undefined), /registry file \/no\/such\/registry\.json: cannot read it \(ENOENT\)/);
});

test("R-AGENT-4: an id that collides with a built-in (or an earlier file) keeps the first and warns", () => {
  const f = file({ version: "1", agents: [agent({ npx: { package: "a" } }, "gemini"), agent({ npx: { package: "b" } }, "fresh")] });
  const warnings: string[] = [];
  const out = registryEntries([f, f], new Set(["gemini"]), (m) => warnings.push(m));
  assert.deepEqual(out.map((e) => [e.agent.id, e.source]), [["fresh", f]]);
  assert.equal(warnings.length, 3);
  assert.match(warnings[0], /"gemini" is already in the catalog; keeping the first one/);
});
