// The real agent CLIs installed under test/agents/node_modules (npm run agents:install), and
// for each a way to run it in isolation against its loopback model-API mock: the absolute
// binary path, a fresh scratch HOME (CODEX_HOME, …) with the config files it needs, and the
// environment, as literals that fit an a4aa AgentSpec `command`.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "../../generated/ts/types.js";
import { startAnthropicMock } from "./mocks/anthropic.js";
import type { MockOptions, ModelMock, Script } from "./mocks/common.js";
import { startGeminiMock } from "./mocks/gemini.js";
import { startChatMock } from "./mocks/openai-chat.js";
import { startResponsesMock } from "./mocks/openai-responses.js";

export type AgentName =
  | "claude"
  | "codex"
  | "gemini"
  | "qwen"
  | "opencode"
  /** `gemini --acp` */
  | "gemini-acp"
  /** @agentclientprotocol/claude-agent-acp */
  | "claude-agent-acp"
  /** @agentclientprotocol/codex-acp */
  | "codex-acp";

export const AGENT_NAMES: readonly AgentName[] = [
  "claude",
  "codex",
  "gemini",
  "qwen",
  "opencode",
  "gemini-acp",
  "claude-agent-acp",
  "codex-acp",
];

export type MockKind = "anthropic" | "responses" | "chat" | "gemini";

/** Which model API each agent calls. */
export const MOCK_KIND: Record<AgentName, MockKind> = {
  claude: "anthropic",
  "claude-agent-acp": "anthropic",
  codex: "responses",
  "codex-acp": "responses",
  gemini: "gemini",
  "gemini-acp": "gemini",
  qwen: "chat",
  opencode: "chat",
};

/** The binary in node_modules/.bin for each agent. */
const BIN: Record<AgentName, string> = {
  claude: "claude",
  codex: "codex",
  gemini: "gemini",
  qwen: "qwen",
  opencode: "opencode",
  "gemini-acp": "gemini",
  "claude-agent-acp": "claude-agent-acp",
  "codex-acp": "codex-acp",
};

/** The lane each agent is driven by in a4aa. */
export const AGENT_LANE: Record<AgentName, "cli" | "acp"> = {
  claude: "cli",
  codex: "cli",
  gemini: "cli",
  qwen: "cli",
  opencode: "cli",
  "gemini-acp": "acp",
  "claude-agent-acp": "acp",
  "codex-acp": "acp",
};

function findRepoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pj = path.join(dir, "package.json");
    if (fs.existsSync(pj)) {
      try {
        if (JSON.parse(fs.readFileSync(pj, "utf8")).name === "a4aa") return dir;
      } catch {
        /* keep looking */
      }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error("test/agents: cannot find the a4aa repository root");
    dir = up;
  }
}

/** The repository root (works from the sources and from dist/). */
export const REPO_ROOT = findRepoRoot();
/** test/agents in the source tree (where its node_modules live). */
export const AGENTS_DIR = path.join(REPO_ROOT, "test", "agents");
export const AGENTS_BIN_DIR = path.join(AGENTS_DIR, "node_modules", ".bin");

export const INSTALL_HINT = "the real agents are not installed: run `npm run agents:install` (npm ci --prefix test/agents)";

/** Absolute path of an agent's binary (it may not exist: see agentsInstalled). */
export function agentBin(name: AgentName): string {
  return path.join(AGENTS_BIN_DIR, BIN[name]);
}

/** True when every agent's binary is installed (or only those named). */
export function agentsInstalled(names: readonly AgentName[] = AGENT_NAMES): boolean {
  return names.every((n) => fs.existsSync(agentBin(n)));
}

/** Throws an Error with a clear hint when an agent is missing. */
export function requireAgents(names: readonly AgentName[] = AGENT_NAMES): void {
  const missing = names.filter((n) => !fs.existsSync(agentBin(n)));
  if (missing.length) throw new Error(`${INSTALL_HINT} (missing: ${missing.map(agentBin).join(", ")})`);
}

/** Versions pinned in test/agents/package.json, by package name. */
export function pinnedVersions(): Record<string, string> {
  return JSON.parse(fs.readFileSync(path.join(AGENTS_DIR, "package.json"), "utf8")).dependencies;
}

/** Starts the mock of the model API `name` calls. */
export function startMockFor(name: AgentName, script?: Script | MockOptions): Promise<ModelMock> {
  switch (MOCK_KIND[name]) {
    case "anthropic":
      return startAnthropicMock(script);
    case "responses":
      return startResponsesMock(script);
    case "chat":
      return startChatMock(script);
    case "gemini":
      return startGeminiMock(script);
  }
}

let rootCached: boolean | undefined;
/** True when running as root (Claude Code then needs IS_SANDBOX=1 for bypass modes). */
export function isRoot(): boolean {
  return (rootCached ??= typeof process.getuid === "function" && process.getuid() === 0);
}

export interface PrepareOptions {
  /** Where the scratch folder is made (default: os.tmpdir()). */
  scratchRoot?: string;
  /** Model name to configure (defaults per agent: see below). */
  model?: string;
  /** Extra literal env vars. */
  env?: Record<string, string>;
  /** Gemini: leave its folder trust on, as a fresh install has it (default off in these tests). */
  folderTrust?: boolean;
}

/** Everything needed to run one agent against its mock, in isolation. */
export interface AgentRun {
  name: AgentName;
  lane: "cli" | "acp";
  mockKind: MockKind;
  /** Absolute path of the binary. */
  program: string;
  /** Arguments that always come first (e.g. `["--acp"]` for gemini-acp). */
  args: string[];
  /**
   * Literal environment for the agent (HOME, CODEX_HOME, TMPDIR, XDG_*, API URL and key,
   * telemetry switches…). PATH is not in it: inherit it (AgentSpec) or see spawnEnv().
   */
  env: Record<string, string>;
  /** The scratch folder (holds home/, work/, tmp/), removed by cleanup(). */
  dir: string;
  /** The scratch HOME. */
  home: string;
  /** A scratch working directory (not a git repository). */
  cwd: string;
  /** The model name configured. */
  model: string;
  /** Environment for a direct spawn: `env` plus PATH (this node's folder first) and LANG. */
  spawnEnv(extra?: Record<string, string>): Record<string, string>;
  /** An a4aa AgentSpec `command` (env policy sanitized, PATH inherited, the rest literals). */
  command(extraArgs?: string[]): Command;
  /**
   * The arguments of one headless turn for per-turn CLIs (claude, codex, gemini, qwen,
   * opencode); `tools: true` adds what lets shell tools run without asking.
   */
  headlessArgs(prompt: string, opts?: { tools?: boolean; thinking?: boolean }): string[];
  /** Removes the scratch folder. */
  cleanup(): Promise<void>;
}

const SAFE_PATH_FALLBACK = "/usr/local/bin:/usr/bin:/bin";

function writeFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function toml(s: string): string {
  return JSON.stringify(s);
}

/** Codex's config.toml for the mock provider (also used by codex-acp). */
export function codexConfigToml(baseUrl: string, model: string): string {
  return [
    `model = ${toml(model)}`,
    `model_provider = "mock"`,
    `check_for_update_on_startup = false`,
    ``,
    `[model_providers.mock]`,
    `name = "mock"`,
    `base_url = ${toml(baseUrl + "/v1")}`,
    `wire_api = "responses"`,
    `env_key = "OPENAI_API_KEY"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[features]`,
    `plugins = false`,
    `remote_plugin = false`,
    `apps = false`,
    ``,
  ].join("\n");
}

/** Gemini CLI / Qwen Code settings.json: auth type, no folder trust, no telemetry or updates. */
function geminiStyleSettings(authType: string, extra: Record<string, unknown> = {}): string {
  return (
    JSON.stringify(
      {
        security: { auth: { selectedType: authType }, folderTrust: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        ...extra,
      },
      null,
      2,
    ) + "\n"
  );
}

/** Scratch folders not cleaned up yet: removed when this process exits, whatever happens. */
const liveScratch = new Set<string>();
let exitHookInstalled = false;
function trackScratch(dir: string): void {
  liveScratch.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const d of liveScratch) {
      try {
        fs.rmSync(d, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        /* best effort */
      }
    }
  });
}

/**
 * Makes a scratch HOME for `name`, writes its config files pointing at `mock.url`, and
 * returns how to run it. Call cleanup() when done.
 */
export function prepareAgent(name: AgentName, mock: { url: string }, opts: PrepareOptions = {}): AgentRun {
  const root = opts.scratchRoot ?? os.tmpdir();
  fs.mkdirSync(root, { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, `a4aa-${name}-`));
  trackScratch(dir);
  const home = path.join(dir, "home");
  const cwd = path.join(dir, "work");
  const tmp = path.join(dir, "tmp");
  for (const d of [home, cwd, tmp]) fs.mkdirSync(d, { recursive: true });
  const url = mock.url.replace(/\/+$/, "");

  // Common to all: a private HOME, TMPDIR and XDG folders inside it, a UTF-8 locale.
  const env: Record<string, string> = {
    HOME: home,
    TMPDIR: tmp,
    USER: os.userInfo().username,
    LOGNAME: os.userInfo().username,
    SHELL: "/bin/bash",
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    NO_COLOR: "1",
    // Anything that asks the npm registry (opencode installs @opencode-ai/plugin in its config
    // folder in the background; update checks) asks the mock instead, which answers 404.
    npm_config_registry: `${url}/npm-registry/`,
  };
  let model: string;
  let args: string[] = [];
  let headless: (prompt: string, tools: boolean, thinking: boolean) => string[] = () => {
    throw new Error(`${name} is an ACP agent: it has no headless turn`);
  };

  const anthropicEnv = (): void => {
    Object.assign(env, {
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: "sk-ant-mock-key",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_BUG_COMMAND: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // An API error from the mock is reported at once instead of retried with backoff.
      CLAUDE_CODE_MAX_RETRIES: "0",
    });
    if (isRoot()) env.IS_SANDBOX = "1";
  };

  switch (name) {
    case "claude":
    case "claude-agent-acp":
      model = opts.model ?? "claude-sonnet-4-5";
      anthropicEnv();
      env.ANTHROPIC_MODEL = model;
      // Marks onboarding done (harmless in -p mode, needed by some interactive paths).
      writeFile(path.join(home, ".claude.json"), JSON.stringify({ hasCompletedOnboarding: true, theme: "dark" }) + "\n");
      if (name === "claude")
        headless = (p, tools) => [
          "-p",
          p,
          "--output-format",
          "stream-json",
          "--verbose",
          ...(tools ? ["--dangerously-skip-permissions"] : []),
        ];
      break;
    case "codex":
    case "codex-acp": {
      model = opts.model ?? "gpt-5.5";
      const codexHome = path.join(home, ".codex");
      writeFile(path.join(codexHome, "config.toml"), codexConfigToml(url, model));
      Object.assign(env, { CODEX_HOME: codexHome, OPENAI_API_KEY: "sk-mock-key" });
      if (name === "codex")
        // The default (read-only sandbox, never ask) runs a harmless command like `echo`.
        headless = (p) => ["exec", "--json", "--skip-git-repo-check", p];
      break;
    }
    case "gemini":
    case "gemini-acp":
      model = opts.model ?? "gemini-2.5-flash";
      writeFile(path.join(home, ".gemini", "settings.json"), geminiStyleSettings("gemini-api-key", opts.folderTrust ? { security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: true } } } : {}));
      Object.assign(env, {
        GOOGLE_GEMINI_BASE_URL: url,
        GEMINI_API_KEY: "mock-gemini-key",
        GEMINI_CLI_NO_RELAUNCH: "true",
        GEMINI_TELEMETRY_ENABLED: "false",
      });
      if (name === "gemini-acp") args = ["--acp", "-m", model];
      else headless = (p, tools) => ["-p", p, "-o", "stream-json", "-m", model, ...(tools ? ["--approval-mode", "yolo"] : [])];
      break;
    case "qwen":
      model = opts.model ?? "mock-model";
      writeFile(
        path.join(home, ".qwen", "settings.json"),
        // No managed auto-memory: it would send an extra model request (a memory-extraction
        // subagent, with tools) after every turn.
        geminiStyleSettings("openai", { memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false } }),
      );
      Object.assign(env, {
        OPENAI_BASE_URL: url + "/v1",
        OPENAI_API_KEY: "sk-mock-key",
        OPENAI_MODEL: model,
        QWEN_CODE_NO_RELAUNCH: "true",
      });
      headless = (p, tools) => ["-p", p, "--output-format", "stream-json", ...(tools ? ["--approval-mode", "yolo"] : [])];
      break;
    case "opencode":
      model = opts.model ?? "mock-model";
      writeFile(
        path.join(home, ".config", "opencode", "opencode.json"),
        JSON.stringify(
          {
            $schema: "https://opencode.ai/config.json",
            provider: {
              mock: {
                npm: "@ai-sdk/openai-compatible",
                name: "Mock",
                options: { baseURL: url + "/v1", apiKey: "sk-mock-key" },
                // Declares image input: opencode sends attached images (`run -f`) only to such a model.
                models: { [model]: { name: "Mock model", attachment: true, modalities: { input: ["text", "image"], output: ["text"] } } },
              },
            },
            model: `mock/${model}`,
            small_model: `mock/${model}`,
            autoupdate: false,
            share: "disabled",
          },
          null,
          2,
        ) + "\n",
      );
      Object.assign(env, {
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_SHARE: "1",
      });
      // opencode asks for nothing by default (bash runs without approval); reasoning is
      // printed (`reasoning` events) only with --thinking.
      headless = (p, _tools, thinking) => ["run", "--format", "json", ...(thinking ? ["--thinking"] : []), p];
      break;
  }
  Object.assign(env, opts.env ?? {});

  const program = agentBin(name);
  const run: AgentRun = {
    name,
    lane: AGENT_LANE[name],
    mockKind: MOCK_KIND[name],
    program,
    args,
    env,
    dir,
    home,
    cwd,
    model: model!,
    spawnEnv: (extra = {}) => ({
      PATH: [path.dirname(process.execPath), process.env.PATH || SAFE_PATH_FALLBACK].join(path.delimiter),
      LANG: "C.UTF-8",
      ...env,
      ...extra,
    }),
    command: (extraArgs = []) => ({
      program,
      args: [...args, ...extraArgs],
      cwd,
      env: { policy: "sanitized", inherit: ["PATH"], set: { ...env } },
    }),
    headlessArgs: (prompt, o = {}) => [...args, ...headless(prompt, o.tools ?? false, o.thinking ?? false)],
    cleanup: async () => {
      // An agent's leftover children may still be writing (codex's sqlite WAL): retry.
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      liveScratch.delete(dir);
    },
  };
  return run;
}

let unshareOk: boolean | undefined;
/**
 * True when `unshare -n` works here (root on Linux): a command run through it sees only its
 * own loopback. Note a mock in *this* process is not reachable from inside such a
 * namespace: to use it, run the whole suite inside one (see test/agents/offline.sh).
 */
export function canUnshareNet(): boolean {
  if (unshareOk !== undefined) return unshareOk;
  try {
    execFileSync("unshare", ["-n", "true"], { stdio: "ignore", timeout: 5000 });
    unshareOk = true;
  } catch {
    unshareOk = false;
  }
  return unshareOk;
}

/** True when this process has no network interface but loopback (e.g. inside offline.sh). */
export function isNetworkIsolated(): boolean {
  try {
    const ifs = os.networkInterfaces();
    return Object.entries(ifs).every(([, addrs]) => (addrs ?? []).every((a) => a.internal));
  } catch {
    return false;
  }
}
