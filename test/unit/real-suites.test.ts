// The real-CLI suites (test/real, run in CI with the real agents) are split one case per file;
// a case no file picks would vanish unnoticed. This checks, without any agent, that every
// driver's every case has its file, and that no file picks a case its driver lacks.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CONFIGS } from "../real/helpers/cli-configs.js";
import { casesFor } from "../real/helpers/cli-suite.js";

const REAL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../test/real");

test("every case of every real CLI driver has a file under test/real, and only cases the driver has", () => {
  const picked = new Map<string, string[]>();
  for (const dir of readdirSync(REAL, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const f of readdirSync(path.join(REAL, dir.name)).filter((n) => n.endsWith(".test.ts"))) {
      for (const m of readFileSync(path.join(REAL, dir.name, f), "utf8").matchAll(/realSuite\(CONFIGS\.(\w+)(?:, \[([^\]]*)\])?\)/g)) {
        const cases = m[2] === undefined ? casesFor(CONFIGS[m[1]]) : [...m[2].matchAll(/"(\w+)"/g)].map((c) => c[1]);
        for (const c of cases) picked.set(`${m[1]} ${c}`, [...(picked.get(`${m[1]} ${c}`) ?? []), `${dir.name}/${f}`]);
      }
    }
  }
  const missing: string[] = [];
  for (const [name, cfg] of Object.entries(CONFIGS)) for (const c of casesFor(cfg)) if (!picked.has(`${name} ${c}`)) missing.push(`${name} ${c}`);
  assert.deepEqual(missing, [], "cases no file under test/real runs");
  const extra = [...picked.keys()].filter((k) => {
    const [name, c] = k.split(" ");
    return !CONFIGS[name] || !(casesFor(CONFIGS[name]) as string[]).includes(c);
  });
  assert.deepEqual(extra, [], "cases a file picks that its driver does not have");
});
