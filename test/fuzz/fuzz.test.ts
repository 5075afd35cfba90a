// R-FRAME-8: a seeded, deterministic fuzz of the host channel against a real `a4aa serve`.
// A4AA_FUZZ_SEED picks another seed, A4AA_FUZZ_FRAMES another size; A4AA_FUZZ_SOAK=1 is the
// long run (1,000,000 frames, 8 oversized lines). `npm run test:fuzz`.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeReport, runFuzz } from "./engine.js";

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
const SOAK = process.env.A4AA_FUZZ_SOAK === "1";
const SEED = Number(process.env.A4AA_FUZZ_SEED ?? 20261203);
const FRAMES = Number(process.env.A4AA_FUZZ_FRAMES ?? (SOAK ? 1_000_000 : 100_000));
const OVERSIZED = SOAK ? 8 : 2;
/** The stated bound: two 64 MiB frames' worth of staging plus the runtime. */
export const PEAK_RSS_BOUND = 320 * 1024 * 1024;

test(`R-FRAME-8: ${FRAMES} seeded frames (seed ${SEED}) leave a4aa serve alive, every request answered exactly once, peak RSS under ${PEAK_RSS_BOUND / 1048576} MiB`, { timeout: SOAK ? 3_600_000 : 300_000 }, async () => {
  const report = await runFuzz({
    argv: [process.execPath, MAIN, "serve", "--log-level", "error"],
    seed: SEED,
    count: FRAMES,
    oversized: OVERSIZED,
    depth: 100_000,
  });
  const summary = describeReport(report);
  console.log(summary);
  assert.ok(report.aliveAfter, `the sidecar did not survive the fuzz:\n${summary}`);
  assert.deepEqual(report.missing, [], summary);
  assert.deepEqual(report.duplicated, [], summary);
  assert.deepEqual(report.unexpected, [], summary);
  assert.equal(report.exitCode, 0, `exit after EOF:\n${summary}`);
  assert.ok(report.peakRssBytes > 0 && report.peakRssBytes < PEAK_RSS_BOUND, summary);
});
