// Real agents opened by catalog id alone (`session/open {agent: {id, credentials}}`) through
// a real `a4aa serve` whose PATH holds the installed agents, each against the loopback mock
// of its model API. The catalog supplies the lane, program, arguments and headless settings;
// the host adds only the declared credentials (keys, endpoints) and, in the open's `env`,
// the scratch folders the test gives each agent.
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { AGENTS_BIN_DIR, INSTALL_HINT, agentsInstalled, isRoot, prepareAgent, startMockFor, type AgentName, type AgentRun } from "../../agents/agents.js";
import type { ModelMock, Reply } from "../../agents/mocks/common.js";
import { reply } from "../../agents/mocks/common.js";
import { teardownRealRig } from "../helpers/teardown.js";
import { TestSidecar, killMarked, newMarker, waitNoProcesses } from "../../helpers/sidecar.js";
import { BUILTIN_CATALOG } from "../../../generated/ts/catalog.js";

export { reply };
const TIMEOUT = 150_000;

export interface Rig {
  s: TestSidecar;
  mock: ModelMock;
  run: AgentRun;
  marker: string;
  credentials: Record<string, string>;
  /** session/open by id alone, plus credentials and the scratch folders. */
  open(extra?: Record<string, unknown>): Promise<any>;
}

export async function catalogRig(agent: AgentName, id: string, script: Reply[], onPermission?: (p: any) => any, serveArgs: (mock: ModelMock) => string[] = () => []): Promise<Rig> {
  const entry = BUILTIN_CATALOG.agents.find((a) => a.id === id);
  assert.ok(entry, `the catalog has ${id}`);
  const mock = await startMockFor(agent, script);
  const run = prepareAgent(agent, mock);
  const marker = newMarker();
  const declared = new Set(entry.credentials.map((c) => c.name));
  const fromCatalog = { ...(entry.settings ?? {}), ...(isRoot() ? (entry.root?.set ?? {}) : {}) };
  const credentials: Record<string, string> = {};
  const env: Record<string, string> = { A4AA_TEST_MARKER: marker };
  for (const [k, v] of Object.entries(run.env)) {
    if (declared.has(k)) credentials[k] = v;
    // What the catalog entry already sets is left to it.
    else if (fromCatalog[k] !== v) env[k] = v;
  }
  if (agent === "opencode") {
    // opencode's provider keys live in its config: a host passes the whole config as a credential.
    const file = path.join(run.home, ".config", "opencode", "opencode.json");
    credentials.OPENCODE_CONFIG_CONTENT = readFileSync(file, "utf8");
    rmSync(file);
  }
  const PATH = [AGENTS_BIN_DIR, path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter);
  const s = new TestSidecar({ env: { PATH, HOME: run.home, LANG: "C.UTF-8" }, onPermission, args: ["--cancel-grace", "5000", ...serveArgs(mock)] });
  return {
    s,
    mock,
    run,
    marker,
    credentials,
    open: (extra = {}) => s.ok("session/open", { agent: { id, credentials }, env, cwd: run.cwd, ...extra }),
  };
}

export const teardown = (r: Rig): Promise<void> => teardownRealRig(r);

const allowOnce = (p: any) => {
  const o = p.options.find((x: { kind: string }) => x.kind === "allowOnce");
  return o ? { result: { selected: o.optionId } } : { result: { cancelled: true } };
};

export interface CatalogCase {
  agent: AgentName;
  id: string;
  lane: "acp" | "rpc" | "cli";
  /** Session options (e.g. a model, to skip a router; the mode in which the shell asks). */
  options?: (run: AgentRun) => Record<string, unknown>;
  /** The model's shell call (default: the agent's plain shell tool); null: the lane cannot ask. */
  toolCall?: ((cmd: string) => Reply) | null;
}

export function realCatalogSuite(c: CatalogCase): void {
  describe(`catalog: ${c.id} opened by {agent: {id}} (${c.lane} lane)`, { skip: agentsInstalled([c.agent]) ? false : INSTALL_HINT }, () => {
    test("R-AGENT-1: a prompt is answered; the open result shows the resolved spec, credentials redacted", { timeout: TIMEOUT }, async () => {
      const r = await catalogRig(c.agent, c.id, [reply.text("Hello from the mock model.")]);
      try {
        const open = await r.open({ options: c.options?.(r.run) ?? {} });
        assert.equal(open.capabilities.lane, c.lane);
        assert.equal(open.spec.lane, c.lane);
        assert.equal(open.spec.command.env.policy, "sanitized");
        assert.equal(path.dirname(open.spec.command.program), AGENTS_BIN_DIR, "the program as found on the sidecar's PATH");
        const names = Object.keys(r.credentials);
        assert.ok(names.length > 0, "the agent got credentials");
        for (const n of names) assert.equal(open.spec.command.env.set[n], "<redacted>", n);
        for (const [n, v] of Object.entries(r.credentials)) {
          if (/KEY|TOKEN|CONTENT/.test(n)) assert.ok(!JSON.stringify(open).includes(v), `the value of ${n} is nowhere in the result`);
        }
        const out = await r.s.ok("session/prompt", { sessionId: open.sessionId, text: "Say hello." });
        assert.equal(out.stopReason, "endTurn");
        assert.match(out.text, /Hello from the mock model\./);
        assert.ok(r.s.events(open.sessionId).some((e) => e.type === "messageChunk"));
        await r.s.ok("session/close", { sessionId: open.sessionId });
      } finally {
        await teardown(r);
      }
    });

    if (c.toolCall === null) return;
    test("R-PERM-1: a shell call's permission is relayed to the host; allowed once, it runs", { timeout: TIMEOUT }, async () => {
      const cmd = "echo a4aa-ok > allowed.txt";
      const asked: any[] = [];
      const call = c.toolCall ? c.toolCall(cmd) : reply.shell(cmd);
      const r = await catalogRig(c.agent, c.id, [call, reply.text("Tool turn finished.")], (p) => {
        asked.push(p);
        return allowOnce(p);
      });
      try {
        const open = await r.open({ options: { permission: "ask", ...(c.options?.(r.run) ?? {}) } });
        const out = await r.s.ok("session/prompt", { sessionId: open.sessionId, text: "Run the command." });
        assert.equal(out.stopReason, "endTurn");
        assert.match(out.text, /Tool turn finished\./);
        assert.ok(asked.length >= 1, "the permission request reached the host");
        assert.equal(asked[0].sessionId, open.sessionId);
        assert.ok(r.s.events(open.sessionId).some((e) => e.type === "permissionResolved" && e.decidedBy === "host" && e.outcome === "selected"));
        assert.ok(existsSync(path.join(r.run.cwd, "allowed.txt")), "the allowed command ran");
        await r.s.ok("session/close", { sessionId: open.sessionId });
      } finally {
        await teardown(r);
      }
    });
  });
}
