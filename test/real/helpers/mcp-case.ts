// R-MCP-1 with real parts: a real agent (test/agents) through a real `a4aa serve`, given
// the real MCP server `@modelcontextprotocol/server-everything` (stdio) in
// `options.mcpServers`; its loopback model mock calls the server's `echo` tool by the name
// the agent offers it under, and the test checks that the server's answer came back into
// the turn (the mock's next request carries it) and that the host saw the tool call.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { agentsInstalled, INSTALL_HINT, prepareAgent, startMockFor, type AgentName, type AgentRun, type PrepareOptions } from "../../agents/agents.js";
import { reply, type RecordedRequest, type Reply } from "../../agents/mocks/common.js";
import { open, sharedHost } from "../../integration/cli/helpers/host.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
export const MCP_SERVER_BIN = path.join(root, "test/agents/node_modules/.bin/mcp-server-everything");
const MESSAGE = "a4aa-mcp-ping";
const FINAL = "MCP turn finished.";
/** In the sidecar's own environment only: must not reach the MCP server (R-MCP-2). */
const SIDECAR_ONLY_VALUE = "sidecar-only-value-4711";

/** The name under which the agent offers the `echo` tool of server `server`, from a model request. */
export function mcpToolName(req: RecordedRequest, server: string): string | undefined {
  const body = JSON.stringify(req.body ?? null);
  const names = [...body.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]);
  const direct = names.find((n) => n.includes(server) && /echo$/.test(n));
  if (direct) return direct;
  // Codex offers an MCP server's tools as a Responses `namespace` tool `mcp__<server>`.
  const ns = names.find((n) => n === `mcp__${server}`);
  return ns && names.includes("echo") ? `${ns}/echo` : undefined;
}

export interface McpCase {
  agent: AgentName;
  npmPackage: string;
  /** The session/open spec for this agent run. */
  spec(run: AgentRun): Record<string, unknown>;
  /** Options beside mcpServers (a preset that lets the tool run, the model). */
  options?(run: AgentRun): Record<string, unknown>;
  /** What the agent calls the tool (recorded from the measured run). */
  expectName: RegExp;
  /** How the agent's scratch home is prepared (e.g. the model its config names). */
  prepare?: PrepareOptions;
  /** `http`: the server runs beside the test in streamable-HTTP mode (default stdio, started by the agent). */
  transport?: "stdio" | "http";
}

/** server-everything in streamable-HTTP mode on a free loopback port; `stop()` ends it. */
async function startHttpServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(MCP_SERVER_BIN, ["streamableHttp"], { env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"], detached: true });
  let err = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything streamableHttp did not listen within 20 s: ${err}`)), 20_000);
    child.stderr!.on("data", (d) => {
      err += String(d);
      if (/listening on port/.test(err)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", (code) => reject(new Error(`server-everything exited ${code}: ${err}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.on("exit", r));
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
      await gone;
    },
  };
}

export function mcpRealCase(c: McpCase): void {
  const installed = agentsInstalled([c.agent]) && existsSync(MCP_SERVER_BIN);
  describe(`R-MCP-1: ${c.agent} (${c.npmPackage}) gets options.mcpServers (${c.transport ?? "stdio"}) natively`, { skip: installed ? false : INSTALL_HINT, timeout: 110_000 }, () => {
    const withHost = sharedHost({ args: ["--log-level", "debug"], env: { ...process.env, A4AA_SIDECAR_ONLY: SIDECAR_ONLY_VALUE } });
    it("R-MCP-1: the model calls the real MCP server's echo tool; its answer comes back into the turn", { timeout: 100_000 }, () =>
      withHost(async (h) => {
        const stops: (() => Promise<void> | undefined)[] = [];
        let offered: string | undefined;
        let getEnv = "get-env";
        // The request indexes after which the echo and get-env answers come back.
        let echoAt = -1;
        let envAt = -1;
        let searched = false;
        // Call echo, then get-env, then say the final text. An agent that defers MCP tools
        // behind a search tool (Qwen Code 0.15, claude-agent-acp) first gets them loaded by name.
        const script = (req: RecordedRequest, i: number): Reply => {
          const body = JSON.stringify(req.body ?? null);
          if (echoAt < 0) {
            offered = mcpToolName(req, "everything");
            // Codex turns `get-env` into `get_env`.
            getEnv = body.includes('"name":"get_env"') ? "get_env" : "get-env";
            if (offered) {
              echoAt = i;
              return reply.tool(offered, { message: MESSAGE });
            }
            const deferred = body.match(/mcp__everything__echo/);
            // Qwen Code's `tool_search`, the Claude Agent SDK's `ToolSearch`.
            const search = ["tool_search", "ToolSearch"].find((n) => body.includes(`"name":"${n}"`));
            if (deferred && !searched && search) {
              searched = true;
              return reply.tool(search, { query: "select:mcp__everything__echo,mcp__everything__get-env" });
            }
            return reply.text("no MCP echo tool offered");
          }
          if (envAt < 0) {
            envAt = i;
            return reply.tool(offered!.replace(/echo$/, getEnv), {});
          }
          return reply.text(FINAL);
        };
        const mock = await startMockFor(c.agent, script);
        const run = prepareAgent(c.agent, mock, c.prepare);
        try {
          h.onPermission = (p) => ({ selected: p.options.find((o: any) => o.kind === "allowOnce")?.optionId ?? p.options[0].optionId });
          const http = c.transport === "http" ? await startHttpServer() : null;
          stops.push(() => http?.stop());
          const server = http
            ? { name: "everything", type: "http", url: http.url, headers: { "X-A4aa-Probe": "mcp-header-literal-0456" } }
            : {
                name: "everything",
                command: MCP_SERVER_BIN,
                args: ["stdio"],
                // The server is a `#!/usr/bin/env node` script: it needs a PATH that reaches node.
                env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, A4AA_MCP_PROBE: "mcp-env-literal-0123" },
              };
          const s = await open(h, { spec: c.spec(run), cwd: run.cwd, options: { ...(c.options?.(run) ?? {}), mcpServers: [server] } });
          assert.equal(s.capabilities.mcp[http ? "http" : "stdio"], true, "capabilities.mcp");
          const out = await h.request("session/prompt", { sessionId: s.sessionId, text: "Call the echo tool." });
          assert.ok(offered, `the agent offered the MCP echo tool; names in the request: ${JSON.stringify(mock.mainRequests()[0]?.body ?? null).match(/.{0,200}everything.{0,200}/g)?.slice(0, 3).join(" || ")} ;; ${[...JSON.stringify(mock.mainRequests()[0]?.body ?? null).matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]).join(" ")}`);
          assert.match(offered!, c.expectName, "the agent's name for the MCP tool");
          assert.equal(out.stopReason, "endTurn");
          assert.match(out.text, new RegExp(FINAL.replace(".", "\\.")));
          const followUp = JSON.stringify(mock.mainRequests()[echoAt + 1]?.body ?? null);
          assert.match(followUp, new RegExp(`Echo: ${MESSAGE}`), "the MCP server's answer went back to the model");
          const ev = h.eventsOf(s.sessionId);
          assert.ok(
            ev.some((e) => (e.type === "toolCall" || e.type === "toolCallUpdate") && /echo/i.test(JSON.stringify(e))),
            `a toolCall/toolCallUpdate for the MCP tool reached the host: ${JSON.stringify(ev.map((e) => e.type))}`,
          );
          // R-MCP-2: the server's environment (its get-env tool) holds its env literal and
          // nothing the sidecar alone had (the agent's own, already bounded, may be merged).
          if (!http) {
            const envText = JSON.stringify(mock.mainRequests()[envAt + 1]?.body ?? null);
            assert.match(envText, /mcp-env-literal-0123/, "the MCP server got its env literal");
            assert.doesNotMatch(envText, new RegExp(SIDECAR_ONLY_VALUE), "nothing of the sidecar's own environment reached the MCP server");
            const names = [...new Set([...envText.matchAll(/\\+"([A-Z][A-Z0-9_]+)\\+":/g)].map((m) => m[1]))];
            console.log(`# ${c.agent}: the MCP server's environment names: ${names.join(" ")}`);
          }
          // R-REC-1 / logs: the MCP env literal never appears in what the sidecar logged.
          for (const v of ["mcp-env-literal-0123", "mcp-header-literal-0456"]) assert.ok(!h.stderrLines.join("\n").includes(v), `${v} is redacted from the log`);
          console.log(`# ${c.agent}: MCP tool offered as ${JSON.stringify(offered)}`);
        } finally {
          for (const stop of stops.splice(0)) await stop();
          for (const id of h.opened) await h.request("session/close", { sessionId: id }).catch(() => undefined);
          await mock.close();
          await run.cleanup();
        }
      }),
    );
  });
}
