// The speed of a person's first minute (issue 29 item 8): from typing `a4aa run --agent gemini
// "…"` to the reply's first character on stdout, and to the command's exit, against acpx (the
// headless ACP client, pinned in test/agents) running the same `gemini --acp` on the same
// loopback mock with the same private HOME and settings. Runs with --real only; the two sides
// alternate, and each figure is the median of the rounds.
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { existsSync } from "node:fs";
import { AGENTS_BIN_DIR, AGENTS_DIR, INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor } from "../../test/agents/agents.js";
import { reply } from "../../test/agents/mocks/common.js";
import { MARKER, MARKER_ENV, SIDECAR_BIN, exited, track } from "../lib/proc.js";
import { row, type Row } from "../lib/report.js";
import { nowMs, quantile } from "../lib/stats.js";
import type { SuiteContext } from "./context.js";

const REPLY = "Zebras cross the road slowly.";
const ACPX = path.join(AGENTS_DIR, "node_modules", "acpx", "dist", "cli.js");
/** One command's bound: a stuck agent fails the suite instead of hanging it. */
const RUN_MS = 90_000;

interface Timing {
  firstMs: number;
  exitMs: number;
}

async function timed(child: ChildProcess, what: string): Promise<Timing> {
  const t0 = nowMs();
  let firstMs = 0;
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (d: string) => {
    out += d;
    if (!firstMs && out.includes(REPLY.slice(0, 3))) firstMs = nowMs() - t0;
  });
  child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const timer = setTimeout(() => child.kill("SIGKILL"), RUN_MS);
  const code = await exited(child);
  clearTimeout(timer);
  const exitMs = nowMs() - t0;
  if (code !== 0 || !firstMs) throw new Error(`${what} exited ${code} after ${exitMs.toFixed(0)} ms${firstMs ? "" : " without the reply"}:\n${out.slice(-1500)}\n${err}`);
  return { firstMs, exitMs };
}

export async function firstMinuteSuite(ctx: SuiteContext): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  if (!ctx.real) {
    ctx.log("  skipped: measures the real gemini against acpx (run with --real)");
    return { rows: [], details: { skipped: "needs --real" } };
  }
  if (!agentsInstalled(["gemini-acp"]) || !existsSync(ACPX)) throw new Error(`--real needs the real agents and acpx: ${INSTALL_HINT}`);
  const mock = await startMockFor("gemini-acp", { fallback: reply.text(REPLY) });
  // One private HOME for both sides: Gemini's settings (auth type, no folder trust, no
  // telemetry), its key and the mock's URL in the environment, as a person's shell would have them.
  const run = prepareAgent("gemini-acp", mock);
  const env = { ...run.spawnEnv(), PATH: `${AGENTS_BIN_DIR}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}/usr/bin:/bin`, NO_COLOR: "1" };
  const rounds = ctx.quick ? 1 : 5;
  const a4aa: Timing[] = [];
  const acpx: Timing[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      // The marker reaches the agent too (a declared variable would; this one is given), so a
      // gemini left by a killed round is found and ended with the suite.
      a4aa.push(
        await timed(
          track({ cmd: process.execPath, args: [SIDECAR_BIN, "run", "--agent", "gemini", "--cwd", run.cwd, "--env", `${MARKER_ENV}=${MARKER}`, "say hello"], env, cwd: run.cwd, stdio: ["ignore", "pipe", "pipe"] }),
          "a4aa run",
        ),
      );
      acpx.push(
        await timed(
          track({ cmd: process.execPath, args: [ACPX, "--agent", `${path.join(AGENTS_BIN_DIR, "gemini")} --acp`, "--approve-all", "--cwd", run.cwd, "exec", "say hello"], env, cwd: run.cwd, stdio: ["ignore", "pipe", "pipe"] }),
          "acpx",
        ),
      );
    }
  } finally {
    await run.cleanup();
    await mock.close();
  }
  const p50 = (xs: Timing[], k: keyof Timing) => quantile(xs.map((t) => t[k]), 0.5);
  ctx.log(`  first character p50: a4aa run ${p50(a4aa, "firstMs").toFixed(0)} ms, acpx ${p50(acpx, "firstMs").toFixed(0)} ms; exit p50: ${p50(a4aa, "exitMs").toFixed(0)} ms, ${p50(acpx, "exitMs").toFixed(0)} ms (${rounds} rounds)`);
  const note = `gemini --acp (its default model) on the loopback mock, ${rounds} alternating rounds`;
  const target = { max: 0.5, text: "≤ 0.5× acpx" };
  return {
    rows: [
      row({ section: "first minute", metric: "a4aa run --agent gemini: to the first character (p50)", unit: "ms", value: p50(a4aa, "firstMs"), baselineName: "acpx 0.19.1 exec, same agent and mock", baseline: p50(acpx, "firstMs"), target, note }),
      row({ section: "first minute", metric: "a4aa run --agent gemini: to exit (p50)", unit: "ms", value: p50(a4aa, "exitMs"), baselineName: "acpx 0.19.1 exec, same agent and mock", baseline: p50(acpx, "exitMs"), target, note }),
    ],
    details: { a4aa, acpx },
  };
}
