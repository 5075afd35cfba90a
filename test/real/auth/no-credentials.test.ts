// Issue 29 item 2: every real agent, on every lane a4aa drives it on, started with no
// credentials at all (a fresh HOME and PATH, nothing else): the open or the first turn fails
// auth_required — not agent_failed, agent_exited or spawn_failed — with the agent's own words
// (the ones recorded in test/agents/auth-failures.json), the variables it reads, and
// uncertainEffect false (it did nothing). Codex's "Missing environment variable" is in
// test/real/codex/rpc.auth.test.ts (it needs a provider config).
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { AGENTS_DIR, INSTALL_HINT, agentBin, agentsInstalled, isRoot, type AgentName } from "../../agents/agents.js";
import { TestSidecar, killMarked, newMarker, waitNoProcesses } from "../../helpers/sidecar.js";
import type { AgentSpec } from "../../../generated/ts/types.js";

const recorded = (JSON.parse(readFileSync(path.join(AGENTS_DIR, "auth-failures.json"), "utf8")) as { failures: { agent: string; lane: string; text: string }[] }).failures;

interface Case {
  agent: AgentName;
  /** The entry of auth-failures.json this case says. */
  recorded: string;
  lane: "acp" | "cli";
  driver?: string;
  args?: string[];
  settings?: string;
  set?: Record<string, string>;
  /** The variables the hint names. */
  reads: RegExp;
}

const CASES: Case[] = [
  { agent: "claude", recorded: "Not logged in", lane: "cli", driver: "claudeCode", reads: /ANTHROPIC_API_KEY/ },
  { agent: "claude-agent-acp", recorded: "Authentication required", lane: "acp", reads: /ANTHROPIC_API_KEY/ },
  { agent: "codex-acp", recorded: "Authentication required", lane: "acp", reads: /OPENAI_API_KEY/ },
  { agent: "gemini", recorded: "Gemini API key is missing", lane: "acp", args: ["--acp"], reads: /GEMINI_API_KEY/ },
  { agent: "gemini", recorded: "Please set an Auth method", lane: "cli", driver: "gemini", reads: /GEMINI_API_KEY/ },
  {
    agent: "gemini",
    recorded: "When using Gemini API",
    lane: "cli",
    driver: "gemini",
    settings: JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } } }),
    reads: /GEMINI_API_KEY/,
  },
  {
    agent: "gemini",
    recorded: "Invalid auth method selected",
    lane: "cli",
    driver: "gemini",
    settings: JSON.stringify({ security: { folderTrust: { enabled: false } } }),
    set: { GEMINI_API_KEY: "a-key", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9" },
    reads: /selectedType/,
  },
  { agent: "qwen", recorded: "No auth type is selected", lane: "cli", driver: "qwen", reads: /OPENAI_API_KEY/ },
  { agent: "qwen", recorded: "Use Qwen Code CLI to authenticate first", lane: "acp", args: ["--acp"], reads: /OPENAI_API_KEY/ },
];

const scratch: string[] = [];
after(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

describe("issue 29: no credentials at all is auth_required on every lane, in the agent's recorded words", () => {
  for (const c of CASES) {
    const name = `${c.agent} (${c.lane} lane${c.settings || c.set ? ", " + Object.keys(c.set ?? { settings: 1 }).join("+") : ""}): "${c.recorded}…"`;
    test(name, { skip: agentsInstalled([c.agent]) ? false : INSTALL_HINT, timeout: 120_000 }, async () => {
      const text = recorded.find((f) => f.text.includes(c.recorded))?.text;
      assert.ok(text, `auth-failures.json records "${c.recorded}"`);
      const home = mkdtempSync(path.join(tmpdir(), "a4aa-nokey-"));
      scratch.push(home);
      const cwd = path.join(home, "work");
      mkdirSync(cwd);
      if (c.settings) {
        mkdirSync(path.join(home, ".gemini"));
        writeFileSync(path.join(home, ".gemini", "settings.json"), c.settings);
      }
      const marker = newMarker();
      const spec = {
        id: c.agent,
        lane: c.lane,
        ...(c.driver ? { driver: c.driver } : {}),
        command: {
          program: agentBin(c.agent),
          args: c.args ?? [],
          env: {
            policy: "sanitized",
            inherit: ["PATH"],
            set: {
              HOME: home,
              A4AA_TEST_MARKER: marker,
              GEMINI_CLI_NO_RELAUNCH: "true",
              QWEN_CODE_NO_RELAUNCH: "true",
              ...(isRoot() ? { IS_SANDBOX: "1" } : {}),
              ...c.set,
            },
          },
        },
      } as AgentSpec;
      const s = new TestSidecar();
      try {
        const open = await s.call("session/open", { spec, cwd });
        const r = open.error ? open : await s.call("session/prompt", { sessionId: (open.result as { sessionId: string }).sessionId, text: "say hi" });
        const d = r.error?.data;
        assert.equal(d?.code, "auth_required", JSON.stringify(r).slice(0, 3000));
        assert.equal(d.uncertainEffect, false, "the agent did nothing");
        assert.ok(d.detail.includes(text.replace("<HOME>", home)), `the agent's recorded words:\n${text}\nin:\n${d.detail}`);
        assert.match(d.detail, c.reads);
        if (process.env.A4AA_SHOW_AUTH_TEXTS) console.log(`${c.agent} ${c.lane} (${d.stage}): ${d.detail}`);
        assert.equal(await s.end(), 0);
        assert.deepEqual(await waitNoProcesses(marker, 10_000), [], "nothing of the agent is left");
      } finally {
        s.kill();
        killMarked(marker);
      }
    });
  }
});
