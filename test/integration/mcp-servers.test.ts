// options.mcpServers through a real sidecar and fake agents: R-MCP-2 (the MCP env follows
// §5's rules, env_refused before anything is spawned), R-MCP-1 (drivers without a way to
// take them refuse with unsupported_selector before spawning; the ACP merge of spec and
// option servers, the option winning by name), R-REC-1 (env and header values redacted
// from the transcript and the debug log).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AgentSpec } from "../../generated/ts/types.js";
import { TestSidecar, fakeAgentSpec, newMarker, waitNoProcesses, killMarked } from "../helpers/sidecar.js";
import { scratchDir } from "../helpers/tmp.js";

const started: TestSidecar[] = [];
const markers: string[] = [];
after(() => {
  for (const s of started) s.kill();
  for (const m of markers) killMarked(m);
});

function sidecar(args: string[] = []): TestSidecar {
  const s = new TestSidecar({ args });
  started.push(s);
  return s;
}

/** A CLI spec whose program leaves a file behind if it is ever started. */
function touchingSpec(driver: string, file: string): AgentSpec {
  return {
    id: `touch-${driver}`,
    lane: "cli",
    driver,
    command: { program: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(file)}, "started")`, "--"], env: { policy: "sanitized", inherit: ["PATH"] } },
  } as AgentSpec;
}

const stdio = (name: string, env: Record<string, string> = {}) => ({ name, command: "/bin/true", args: ["x"], env });

test("R-MCP-2: an MCP env name that breaks §5's rule or a value with a NUL is env_refused (stage spawn) before anything is spawned", async () => {
  const s = sidecar();
  const dir = scratchDir("a4aa-mcp-env");
  const file = path.join(dir, "started");
  const envs: Record<string, string>[] = [{ "BAD-NAME": "x" }, { "1ST": "x" }, { OK_NAME: "a\u0000b" }];
  for (const env of envs) {
    const r = await s.call("session/open", { spec: touchingSpec("claudeCode", file), options: { mcpServers: [stdio("srv", env)] } });
    assert.equal(r.error?.data?.code, "env_refused", JSON.stringify(env));
    assert.equal(r.error?.data?.stage, "spawn");
    assert.match(r.error.data.detail, /options\.mcpServers\[0\] \(srv\)\.env/);
  }
  assert.equal(existsSync(file), false, "nothing was started");
});

test("R-MCP-1: two MCP servers of one name are invalid_params before spawning", async () => {
  const s = sidecar();
  const file = path.join(scratchDir("a4aa-mcp-dup"), "started");
  const r = await s.call("session/open", { spec: touchingSpec("claudeCode", file), options: { mcpServers: [stdio("same"), stdio("same")] } });
  assert.equal(r.error?.data?.code, "invalid_params");
  assert.equal(existsSync(file), false);
});

test("R-MCP-1: generic, cursorAgent and amp refuse options.mcpServers with unsupported_selector (stage open) before spawning; codex refuses sse", async () => {
  const s = sidecar();
  const dir = scratchDir("a4aa-mcp-refuse");
  for (const driver of ["generic", "cursorAgent", "amp"]) {
    const file = path.join(dir, driver);
    const r = await s.call("session/open", { spec: touchingSpec(driver, file), options: { mcpServers: [stdio("srv")] } });
    assert.equal(r.error?.data?.code, "unsupported_selector", driver);
    assert.equal(r.error?.data?.stage, "open");
    assert.match(r.error.data.detail, /cannot be handed MCP servers/);
    assert.equal(existsSync(file), false, `${driver} was not started`);
  }
  const file = path.join(dir, "codex");
  const r = await s.call("session/open", { spec: touchingSpec("codex", file), options: { mcpServers: [{ name: "remote", type: "sse", url: "http://127.0.0.1:9/sse" }] } });
  assert.equal(r.error?.data?.code, "unsupported_selector");
  assert.match(r.error.data.detail, /sse server/);
  assert.equal(existsSync(file), false);
});

const ENV_SECRET = "mcp-env-5ecret-CCCC3333";
const HEADER_SECRET = "Bearer mcp-header-5ecret-DDDD4444";

test("R-MCP-1 + R-REC-1: on the acp lane the spec's and the option's servers are merged (the option wins by name), in ACP form; MCP env and header values are redacted from the transcript and the debug log", async () => {
  const dir = scratchDir("a4aa-mcp-rec");
  const marker = newMarker();
  markers.push(marker);
  const s = sidecar(["--record", dir, "--log-level", "debug"]);
  const spec = fakeAgentSpec(marker) as AgentSpec & { mcpServers?: unknown[] };
  spec.mcpServers = [
    { name: "from-spec", command: "/bin/spec-only", args: [], env: [] },
    { name: "both", command: "/bin/spec-version", args: [], env: [] },
  ];
  const options = {
    mcpServers: [
      { name: "both", command: "/bin/option-version", args: ["--flag"], env: { TOKEN: ENV_SECRET } },
      { name: "remote", type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: HEADER_SECRET } },
    ],
  };
  const r = await s.call("session/open", { spec, options });
  // The fake agent offers no http MCP: the http server is refused right after the handshake.
  assert.equal(r.error?.data?.code, "unsupported_selector", JSON.stringify(r));
  assert.match(r.error.data.detail, /"remote" is a http server/);
  // Without the http one the open goes through; session/new carries the merged list.
  const id = await s.open(spec, { options: { mcpServers: [options.mcpServers[0]] } });
  const opened = await s.ok("session/close", { sessionId: id });
  assert.ok(opened);
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);

  const files = readdirSync(dir).map((f) => path.join(dir, f));
  const all = [...files.map((f) => ({ name: f, text: readFileSync(f, "utf8") })), { name: "stderr (debug)", text: s.stderr }];
  for (const { name, text } of all) {
    for (const secret of [ENV_SECRET, HEADER_SECRET, "mcp-header-5ecret-DDDD4444"]) assert.equal(text.includes(secret), false, `${secret} in ${name}`);
  }
  const lines = files.flatMap((f) => readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)));
  const news = lines.filter((l) => l.msg?.method === "session/new").map((l) => l.msg.params.mcpServers);
  // The refused open stopped the agent right after initialize, before session/new.
  assert.equal(news.length, 1, "only the accepted open reached session/new");
  assert.deepEqual(news.at(-1), [
    { name: "from-spec", command: "/bin/spec-only", args: [], env: [] },
    { name: "both", command: "/bin/option-version", args: ["--flag"], env: [{ name: "TOKEN", value: "<redacted>" }] },
  ]);
});
