// The suite's own tests: its registry is whole, and each deliberately broken implementation
// in broken/ is caught by the requirement it breaks while unrelated ones still pass.
// Run with `node scripts/run-tests.mjs test/conformance` after `npm run build`.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { REQUIREMENTS } from "./registry.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const MAIN = path.join(here, "main.js");
const tmp = mkdtempSync(path.join(os.tmpdir(), "a4aa-conf-self-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

interface Report {
  problems: string[];
  requirements: { id: string; tier: string; result: string }[];
  checks: { id: string; status: string; error?: string }[];
}

function conformance(args: string[]): Promise<{ code: number; stdout: string; report: Report | null }> {
  const json = path.join(tmp, `r-${Math.random().toString(36).slice(2)}.json`);
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args, "--json", json, "--jobs", "3"], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      resolve({ code: typeof code === "number" ? code : 1, stdout, report: existsSync(json) ? JSON.parse(readFileSync(json, "utf8")) : null });
    });
  });
}

const broken = (name: string) => `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(here, "broken", `${name}.js`))}`;
const resultOf = (r: Report, id: string) => r.requirements.find((q) => q.id === id)?.result;

test("--list: every mandatory requirement has a check and the suite has no problems", async () => {
  const r = await conformance(["--list"]);
  assert.equal(r.code, 0, r.stdout);
  assert.doesNotMatch(r.stdout, /SUITE PROBLEM/);
  assert.match(r.stdout, new RegExp(`${REQUIREMENTS.length} requirements`));
});

test("the registry holds every R- id of spec/a4aa.v1.md (when the spec is at hand)", (t) => {
  // A4AA_SPEC names the spec where the checkout is not next to shared/ (a worktree).
  const spec = process.env.A4AA_SPEC ?? path.resolve(here, "../../../../shared/spec/a4aa.v1.md");
  if (!existsSync(spec)) return t.skip(`no spec at ${spec}`);
  const ids = new Set(readFileSync(spec, "utf8").match(/R-[A-Z]+-\d+/g));
  const mine = new Set(REQUIREMENTS.map((r) => r.id));
  assert.deepEqual([...ids].filter((id) => !mine.has(id)), []);
});

test("the real a4aa serve passes a sample and prints the table and the summary line", async () => {
  const r = await conformance(["--only", "R-CORE-1,R-FRAME-5"]);
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /REQUIREMENT\s+TIER\s+RESULT\s+CHECKS/);
  assert.match(r.stdout.trimEnd().split("\n").pop()!, /^2 passed, 0 failed$/);
});

// [broken implementation, checks to run, requirement it must fail, requirement that must still pass];
// the ones that wait out a check's deadline first, so that five at a time finish together.
const CASES: [string, string, string, string][] = [
  ["wide-cwd", "R-HOSTILE-3/swap-race,R-HOSTILE-5/acp-stdout-closed", "R-HOSTILE-3", "R-HOSTILE-5"],
  ["ignore-stdout-eof", "R-HOSTILE-5/acp-stdout-closed,R-HOSTILE-3/special-files", "R-HOSTILE-5", "R-HOSTILE-3"],
  ["no-handshake-deadline", "R-OPEN-2,R-CORE-1", "R-OPEN-2", "R-CORE-1"],
  ["drop-ids", "R-FRAME-4,R-CORE-1", "R-FRAME-4", "R-CORE-1"],
  ["unbounded-text", "R-HOSTILE-2/text-and-terminal-bounds,R-HOSTILE-5/acp-stdout-closed", "R-HOSTILE-2", "R-HOSTILE-5"],
  ["cancel-early", "R-CANCEL-1/ack-after-delivery,R-CORE-1", "R-CANCEL-1", "R-CORE-1"],
  ["remote-no-settled", "R-REMOTE-5,R-REMOTE-6", "R-REMOTE-5", "R-REMOTE-6"],
  ["no-guard", "R-SUP-4,R-CORE-1", "R-SUP-4", "R-CORE-1"],
  ["no-exit-sweep", "R-SUP-3,R-CORE-1", "R-SUP-3", "R-CORE-1"],
  ["orphan-on-eof", "R-EOF-1/eof-settles-everything,R-SUP-1/shutdown,R-CORE-3/error-data", "R-EOF-1", "R-CORE-3"],
  ["close-early", "R-CLOSE-1/mid-turn,R-CORE-1", "R-CLOSE-1", "R-CORE-1"],
  ["leak-env", "R-ENV-1/exact-environment,R-ENV-2", "R-ENV-1", "R-ENV-2"],
  ["notification-cancel", "R-CANCEL-2,R-CORE-1", "R-CANCEL-2", "R-CORE-1"],
  ["approve-anyway", "R-PERM-1/bad-answers-fail-closed,R-ACP-3", "R-PERM-1", "R-ACP-3"],
  ["stdout-noise", "R-FRAME-1,R-CORE-1", "R-FRAME-1", "R-CORE-1"],
  ["deep-crash", "R-FRAME-8,R-CORE-1", "R-FRAME-8", "R-CORE-1"],
  ["no-cookie", "R-SUP-5/daemon-close,R-CORE-1", "R-SUP-5", "R-CORE-1"],
  ["zero-counts", "R-SUP-6,R-SUP-1/close-ends-tree", "R-SUP-6", "R-SUP-1"],
  ["seq-gaps", "R-SEQ-1,R-CORE-1", "R-SEQ-1", "R-CORE-1"],
  ["leak-record", "R-REC-1,R-CORE-1", "R-REC-1", "R-CORE-1"],
  ["remote-no-auth", "R-REMOTE-2/auth-origin,R-REMOTE-8/endpoints", "R-REMOTE-2", "R-REMOTE-8"],
  ["remote-one-tenant", "R-REMOTE-3/tenants,R-REMOTE-2/auth-origin", "R-REMOTE-3", "R-REMOTE-2"],
  ["remote-close-on-drop", "R-REMOTE-3/turn-outlives-connection,R-REMOTE-5", "R-REMOTE-3", "R-REMOTE-5"],
  ["remote-replay-drop", "R-REMOTE-4/attach-mid-turn,R-REMOTE-6", "R-REMOTE-4", "R-REMOTE-6"],
  ["remote-op-strip", "R-REMOTE-6,R-REMOTE-5", "R-REMOTE-6", "R-REMOTE-5"],
  ["drop-spec", "R-AGENT-1,R-AGENT-2", "R-AGENT-1", "R-AGENT-2"],
  ["open-record", "R-REC-2,R-REC-1", "R-REC-2", "R-REC-1"],
];

describe("broken implementations are caught by the requirement they break", { concurrency: 5 }, () => {
  for (const [name, only, fails, passes] of CASES) {
    test(`${name}: ${fails} fails, ${passes} passes`, async () => {
      const r = await conformance(["--server", broken(name), "--only", only]);
      assert.ok(r.report, `no report; output:\n${r.stdout}`);
      // A failed capability requirement is reported without failing the run (README, Tiers).
      if (REQUIREMENTS.find((q) => q.id === fails)?.tier === "mandatory") assert.equal(r.code, 1, "the run must fail");
      assert.equal(resultOf(r.report, fails), "fail", `${fails} was not failed by ${name}:\n${r.stdout.slice(-3000)}`);
      assert.equal(resultOf(r.report, passes), "pass", `${passes} should still pass against ${name}:\n${r.stdout.slice(-3000)}`);
      assert.match(r.stdout, /wire transcript/, "a failure prints the transcript");
      assert.match(r.stdout, /stderr tail/, "a failure prints the stderr tail");
    });
  }
});
