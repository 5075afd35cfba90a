// Issue 25 with real agents: gemini --acp, Claude Code (stream-json) and codex app-server,
// each against its loopback model mock, driven through `a4aa serve --listen` by the
// TypeScript client over a TCP proxy the test cuts twice mid-turn (R-REMOTE-3, R-REMOTE-4,
// R-REMOTE-10): the turn goes on in the sidecar, the client reconnects and attaches, and the
// application's stream is the session's journal — no gap, no duplicate, the model asked once.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { TurnEnd, connect, type AgentEvent, type StreamItem } from "../../../clients/ts/index.js";
import type { AgentSpec } from "../../../generated/ts/types.js";
import { INSTALL_HINT, agentsInstalled, prepareAgent, startMockFor, type AgentName } from "../../agents/agents.js";
import { reply } from "../../agents/mocks/common.js";
import { proxyTo } from "../../helpers/cut-proxy.js";
import { waitNoProcesses } from "../../helpers/sidecar.js";
import { scratchDir } from "../../helpers/tmp.js";
import { remoteSetup } from "../../integration/remote/setup.js";

const { start, marker } = remoteSetup();
const TOKEN = "real-remote-token";
const tokens = path.join(scratchDir("a4aa-real-remote"), "tokens");
writeFileSync(tokens, `ops:${TOKEN}\n`);

const CASES: { agent: AgentName; spec: (command: AgentSpec["command"]) => AgentSpec }[] = [
  { agent: "gemini-acp", spec: (command) => ({ id: "gemini-acp", lane: "acp", command }) as AgentSpec },
  { agent: "claude", spec: (command) => ({ id: "claude", lane: "cli", driver: "claudeCode", command }) as AgentSpec },
  {
    agent: "codex",
    spec: (command) => ({ id: "codex", lane: "rpc", dialect: "codexAppServer", command: { ...command, args: [...(command.args ?? []), "app-server"] } }) as AgentSpec,
  },
];

const isChunk = (e: StreamItem): e is Extract<AgentEvent, { type: "messageChunk" }> => e.type === "messageChunk";
const WORDS = Array.from({ length: 30 }, (_, i) => `w${i} `);

describe("real agents through a remote connection cut mid-turn", { skip: agentsInstalled(CASES.map((c) => c.agent)) ? false : INSTALL_HINT }, () => {
  for (const c of CASES) {
    test(`R-REMOTE-3, R-REMOTE-4, R-REMOTE-10: ${c.agent}: two cuts mid-turn; the client catches up: every event once, the model asked once, the session usable after`, { timeout: 180_000 }, async () => {
      const mock = await startMockFor(c.agent, [reply.slow(WORDS, 60), reply.text("After the cuts.")]);
      const run = prepareAgent(c.agent, mock);
      const m = marker();
      const command = run.command();
      const env = command.env as { policy: "sanitized"; inherit?: string[]; set?: Record<string, string> };
      const spec = c.spec({ ...command, env: { ...env, set: { ...(env.set ?? {}), A4AA_TEST_MARKER: m } } });
      const s = start(["--listen", "ws://127.0.0.1:0", "--auth-token-file", tokens, "--cancel-grace", "5000"]);
      const proxy = await proxyTo(await s.url());
      const client = await connect(proxy.url, { token: TOKEN, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
      try {
        const { sessionId } = await client.sessionOpen({ spec, cwd: run.cwd, options: { permission: "bypass" } });
        const seen: StreamItem[] = [];
        let chunks = 0;
        for await (const item of client.promptStream({ sessionId, text: "Talk slowly." })) {
          seen.push(item);
          if (isChunk(item) && (++chunks === 2 || chunks === 6)) proxy.cut();
        }
        assert.ok(client.reconnects >= 1, `the client reconnected (${client.reconnects})`);
        const ends = seen.filter((e): e is TurnEnd => e instanceof TurnEnd);
        assert.equal(ends.length, 1, "the outcome once");
        assert.equal(ends[0]!.outcome?.stopReason, "endTurn");
        const text = seen.filter(isChunk).map((e) => e.text).join("");
        assert.equal(text.replace(/\s+/g, " ").trim(), WORDS.join("").trim(), "the streamed text, each part once and in order");
        const history = await client.sessionHistory({ sessionId });
        assert.deepEqual(seen.filter((e) => !(e instanceof TurnEnd)), history.events.map((h) => h.event), "what the application got is the journal, event for event");
        assert.equal(mock.mainRequests().length, 1, "the model was asked once: the turn ran once");
        assert.match((await client.prompt(sessionId, "And now?")).text ?? "", /After the cuts\./);
        await client.sessionClose({ sessionId });
        assert.deepEqual(await waitNoProcesses(m, 10_000), [], "nothing of the agent is left");
      } finally {
        await client.close();
        await proxy.close();
        await s.stop();
        await mock.close();
        await run.cleanup();
      }
    });
  }
});
