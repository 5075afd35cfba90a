// A node:test reporter that adds up each test file's time (its top-level tests and suites)
// and prints the slowest files at the end, so that a slow file is seen when it appears.
// run-tests.mjs adds it beside the spec reporter; `A4AA_TEST_TIMES=N` lists N files (default 8).
import path from "node:path";

export default async function* fileTimes(source) {
  const byFile = new Map();
  let failed = 0;
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || !file) continue;
    if (event.type === "test:fail") failed++;
    const f = byFile.get(file) ?? { ms: 0, tests: 0 };
    f.ms += details?.duration_ms ?? 0;
    f.tests++;
    byFile.set(file, f);
  }
  const n = Number(process.env.A4AA_TEST_TIMES ?? 8);
  if (!byFile.size || n <= 0) return;
  const rows = [...byFile].sort((a, b) => b[1].ms - a[1].ms).slice(0, n);
  const total = [...byFile.values()].reduce((s, f) => s + f.ms, 0);
  yield `\nslowest test files (time in their tests; ${byFile.size} files, ${(total / 1000).toFixed(1)} s in all${failed ? `, ${failed} failed` : ""}):\n`;
  for (const [file, f] of rows) {
    yield `  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${String(f.tests).padStart(3)}  ${path.relative(process.cwd(), file).replace(/^dist\//, "").replace(/\.js$/, ".ts")}\n`;
  }
}
