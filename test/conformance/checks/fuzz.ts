// R-FRAME-8: the seeded framing fuzz (test/fuzz), 20,000 frames here; `npm run test:fuzz`
// runs 100,000 against this package's sidecar.
import assert from "node:assert/strict";
import type { Check } from "../harness/context.js";
import { describeReport, runFuzz } from "../../fuzz/engine.js";

const FRAMES = 20_000;
const PEAK_RSS_BOUND = 320 * 1024 * 1024;

export const fuzzChecks: Check[] = [
  {
    id: "R-FRAME-8/seeded-fuzz",
    covers: ["R-FRAME-8"],
    title: `${FRAMES} seeded hostile frames (nested 10^5 deep, invalid UTF-8, BOMs, duplicate ids, one oversized, …) with valid requests between: alive, every request answered exactly once, peak RSS < ${PEAK_RSS_BOUND / 1048576} MiB`,
    heavy: true,
    timeoutMs: 120_000,
    async run(ctx) {
      const { argv, env } = ctx.server;
      const report = await runFuzz({ argv, env, seed: 20261203, count: FRAMES, oversized: 1, depth: 100_000 });
      // The fuzzed process is the suite's own; a host of the harness carries the summary
      // into the failure report (transcript and stderr tail).
      const h = ctx.start();
      const summary = describeReport(report);
      for (const l of summary.split("\n")) h.wire.note(`fuzz: ${l}`);
      await h.api.ping();
      assert.ok(report.aliveAfter, `the implementation did not survive the fuzz:\n${summary}`);
      assert.deepEqual(report.missing, [], `requests left unanswered:\n${summary}`);
      assert.deepEqual(report.duplicated, [], `requests answered more than once:\n${summary}`);
      assert.deepEqual(report.unexpected, [], `answers nobody asked for:\n${summary}`);
      assert.equal(report.exitCode, 0, `exit after EOF:\n${summary}`);
      assert.ok(report.peakRssBytes < PEAK_RSS_BOUND, `peak RSS over the bound:\n${summary}`);
      assert.equal(await h.end(), 0);
    },
  },
];
