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

/** Whether an agent's message reads like an authentication failure (401, "not logged in", …). */
export function looksLikeAuthFailure(message: string): boolean {
  return /\b401\b|missing environment variable:? *`?\w*(api_key|token)\b|unauthori[sz]ed|unauthenticated|not logged in|please (run \/?)?log ?in|invalid (x-)?api[ -]?key|api key (is )?(missing|invalid|not valid)|authentication (failed|required|error)|auth(entication)?_required|invalid_api_key|incorrect api key/i.test(message);
}

/**
 * An authentication failure as the host sees it: auth_required with the agent's own message
 * and the hint. `acted`: the agent ran a tool (or asked to) before failing; else it provably did nothing.
 */
export function authFailure(spec: AgentSpec, stage: "initialize" | "prompt", message: string, acted = false): A4aaError {
  return errors.authRequired(stage, `${message}\n${credentialHint(spec)}`, { uncertainEffect: acted });
}

/**
 * A lane's `agent_failed` whose message reads like an authentication failure, as
 * `auth_required` (Claude Code's "Not logged in · Please run /login" on the cli lane, codex's
 * "Missing environment variable: `OPENAI_API_KEY`" on cli and rpc): one classification for
 * every lane, at the turn's end. Anything else passes through unchanged.
 */
export function asAuthFailure(spec: AgentSpec | undefined, err: A4aaError): A4aaError {
  if (!spec || err.code !== "agent_failed" || !looksLikeAuthFailure(err.detail ?? "")) return err;
  return authFailure(spec, err.stage === "initialize" ? "initialize" : "prompt", err.detail ?? "", err.uncertainEffect);
}
