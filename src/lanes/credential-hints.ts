// What to tell a person whose agent failed to authenticate: its environment is only what
// the spec names, and which variables that agent reads its credentials from. A table until
// the agents catalog supplies the credentials per entry; keep this one lookup.
import path from "node:path";
import type { AgentSpec } from "../../generated/ts/types.js";
import { A4aaError, errors } from "../errors.js";

/** Credential variables by agent (CLI driver name or program name, ACP adapters included). */
const CREDENTIALS: Record<string, readonly string[]> = {
  claude: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"],
  codex: ["OPENAI_API_KEY", "CODEX_HOME"],
  gemini: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL"],
  qwen: ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"],
  opencode: ["OPENCODE_CONFIG", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"],
};

/** Program names (and CLI drivers) of each table entry. */
const ALIASES: Record<string, string> = {
  claude: "claude",
  claudeCode: "claude",
  "claude-code": "claude",
  "claude-agent-acp": "claude",
  "claude-code-acp": "claude",
  codex: "codex",
  "codex-acp": "codex",
  gemini: "gemini",
  qwen: "qwen",
  opencode: "opencode",
};

/** Which known agent a spec runs (claude, codex, gemini, qwen, opencode), if a4aa can tell. */
export function agentFamily(spec: AgentSpec): string | undefined {
  if (spec.lane === "cli" && ALIASES[spec.driver]) return ALIASES[spec.driver];
  if (spec.lane === "rpc") return "codex";
  // `npx @agentclientprotocol/claude-agent-acp`, `node …/gemini.js --acp`: the first word that names one.
  for (const word of [spec.command.program, ...spec.command.args]) {
    const base = path.basename(word).replace(/(@[^@/]*)?$/, "").replace(/\.(c?js|mjs|cmd|exe)$/, "");
    if (ALIASES[base]) return ALIASES[base];
  }
  return undefined;
}

/** The credential variables `spec`'s agent reads, [] when a4aa does not know that agent. */
export function credentialVariables(spec: AgentSpec): readonly string[] {
  const key = agentFamily(spec);
  return key ? CREDENTIALS[key] : [];
}

/** The sentence an authentication failure's `detail` ends with. */
export function credentialHint(spec: AgentSpec): string {
  const names = credentialVariables(spec);
  const reads = names.length
    ? `this agent reads its credentials from ${names.join(", ")}`
    : "name the variables this agent reads its credentials from";
  return (
    `The agent's environment is only what its spec names (command.env inherit/set and session/open env; ` +
    `nothing else of the sidecar's environment reaches it): ${reads} — set them in command.env.set or session/open env; ` +
    `a login stored under HOME is seen only when HOME is inherited.`
  );
}

/**
 * What the real agents print when they have no usable credentials (recorded from the pinned
 * CLIs, see test/agents/auth-failures.json): generic HTTP/API wording first, then each
 * agent's own sentence.
 */
const AUTH_FAILURE = new RegExp(
  [
    String.raw`\b401\b|unauthori[sz]ed|unauthenticated|authentication (failed|required|error)|auth(entication)?_required`,
    String.raw`invalid (x-)?api[ -]?key|api key (is )?(missing|invalid|not valid)|invalid_api_key|incorrect api key`,
    // Claude Code: "Not logged in · Please run /login"; codex: "Missing environment variable: `OPENAI_API_KEY`".
    String.raw`not logged in|please (run \/?)?log ?in|missing environment variable:? *\`?\w*(api_key|token)\b`,
    // Gemini CLI (headless, exit 41): no auth type, no key for the chosen one, or one its headless mode does not know.
    String.raw`please set an auth method|you must specify the gemini_api_key|invalid auth method selected`,
    // Qwen Code: "No auth type is selected. Please configure an auth type (e.g. via settings or `--auth-type`) …".
    String.raw`no auth type is selected`,
  ].join("|"),
  "i",
);

/** Whether an agent's message reads like an authentication failure (401, "not logged in", …). */
export function looksLikeAuthFailure(message: string): boolean {
  return AUTH_FAILURE.test(message);
}

/**
 * An authentication failure as the host sees it: auth_required with the agent's own message
 * and the hint. `acted`: the agent ran a tool (or asked to) before failing; else it provably did nothing.
 */
export function authFailure(spec: AgentSpec, stage: "initialize" | "prompt", message: string, acted = false): A4aaError {
  const note = AGENT_NOTES.find(([said]) => said.test(message))?.[1];
  return errors.authRequired(stage, `${message}${note ? `\n${note}` : ""}\n${credentialHint(spec)}`, { uncertainEffect: acted });
}

/** Where an agent's words alone do not say what to change. */
const AGENT_NOTES: [RegExp, string][] = [
  [
    /invalid auth method selected/i,
    'Gemini CLI\'s headless mode takes its auth type from settings.json (security.auth.selectedType, e.g. "gemini-api-key"), else from the environment, where GOOGLE_GEMINI_BASE_URL picks one that mode refuses: set selectedType in that HOME\'s .gemini/settings.json, or use the acp lane (gemini --acp).',
  ],
];

/** The codes a lane reports an agent's own failure with: the agent said it (agent_failed), or
 * it ended saying it (agent_exited in a turn, spawn_failed before its handshake). */
const AGENT_ENDED = new Set(["agent_failed", "agent_exited", "spawn_failed"]);

/**
 * A lane's error whose text reads like an authentication failure, as `auth_required`
 * (Claude Code's "Not logged in · Please run /login" on the cli lane, codex's "Missing
 * environment variable: `OPENAI_API_KEY`" on cli and rpc, Gemini CLI's exit 41 "Please set an
 * Auth method…", Qwen Code's "No auth type is selected"): one classification for every lane,
 * at the open's or the turn's end. `acted`: a tool call was seen in the turn (else the agent
 * provably did nothing). Anything else passes through unchanged.
 */
export function asAuthFailure(spec: AgentSpec | undefined, err: A4aaError, acted?: boolean): A4aaError {
  if (!spec || !AGENT_ENDED.has(err.code) || !looksLikeAuthFailure(err.detail ?? "")) return err;
  const stage = err.stage === "prompt" ? "prompt" : "initialize";
  return authFailure(spec, stage, err.detail ?? "", acted ?? (stage === "prompt" && err.uncertainEffect));
}
