// The environment boundary (a4aa.v1 §5): one pure function from (policy, session env,
// sidecar env, trust flag) to exactly the environment a child gets, or a typed refusal.
// Nothing of the sidecar's environment reaches an agent, its PTY or a terminal it asks
// for unless this function put it there.
import type { AgentSelection, EnvLiterals, EnvPolicy, EnvValue } from "../../generated/ts/types.js";
import { A4aaError, errors } from "../errors.js";

/** The inert names a sanitized policy may inherit (R-ENV-1): never credentials. */
export const INHERITED_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "TMPDIR",
  "TMP",
  "TEMP",
  "TZ",
  "LANG",
  "LANGUAGE",
];

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isInheritable(name: string): boolean {
  return INHERITED_ENV.includes(name) || /^LC_[A-Za-z0-9_]+$/.test(name);
}

export interface EnvInput {
  policy: EnvPolicy;
  /** `session/open`'s literal `env`, merged last. */
  sessionEnv?: EnvLiterals;
  /** The sidecar's own environment. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The sidecar was started with --trust-host-env (R-ENV-3). */
  trustHostEnv: boolean;
}

export type EnvResult = { ok: true; env: Record<string, string> } | { ok: false; error: A4aaError };

const refuse = (detail: string): EnvResult => ({ ok: false, error: errors.envRefused("spawn", detail) });

function checkName(name: string, where: string): string | null {
  return NAME.test(name) ? null : `${where}: ${JSON.stringify(name)} is not a valid variable name (^[A-Za-z_][A-Za-z0-9_]*$)`;
}

function checkValue(name: string, value: string, where: string): string | null {
  return value.includes("\0") ? `${where}: the value of ${name} contains a NUL byte` : null;
}

/** Resolves one `set` value; a string result is the refusal reason. */
function resolveValue(
  name: string,
  value: EnvValue,
  hostEnv: EnvInput["hostEnv"],
): { value: string | undefined } | string {
  if (typeof value === "string") return { value };
  if ("secret" in value) {
    return `set.${name}: secret references are always refused (R-ENV-2); a trusted custody host resolves them to literals before sending the spec`;
  }
  const src = value.hostEnv;
  const bad = checkName(src, `set.${name}.hostEnv`);
  if (bad) return bad;
  if (!isInheritable(src)) {
    return `set.${name}.hostEnv: ${src} is not on the inherit allowlist (${INHERITED_ENV.join(", ")}, LC_*) (R-ENV-1)`;
  }
  return { value: hostEnv[src] };
}

export function buildChildEnv(input: EnvInput): EnvResult {
  const { policy, hostEnv } = input;
  // No prototype: a name such as `__proto__` is a variable like any other, never dropped.
  const env: Record<string, string> = Object.create(null) as Record<string, string>;

  if (policy.policy === "inheritAll") {
    if (!input.trustHostEnv) {
      return refuse(
        'env policy "inheritAll" needs the sidecar to be started with --trust-host-env (R-ENV-3); otherwise inherit allowlisted names or set literals',
      );
    }
    for (const [k, v] of Object.entries(hostEnv)) if (v !== undefined) env[k] = v;
  } else if (policy.policy === "sanitized") {
    for (const name of policy.inherit ?? []) {
      const bad = checkName(name, "inherit");
      if (bad) return refuse(bad);
      if (!isInheritable(name)) {
        return refuse(
          `inherit: ${name} is not on the allowlist (${INHERITED_ENV.join(", ")}, LC_*) (R-ENV-1); pass it as a literal in "set" if the agent really needs it`,
        );
      }
      const v = hostEnv[name];
      if (v !== undefined) env[name] = v;
    }
  } else {
    return refuse(`unknown env policy ${JSON.stringify((policy as { policy: unknown }).policy)}`);
  }

  for (const [name, value] of Object.entries(policy.set ?? {})) {
    if (value === undefined) continue;
    const bad = checkName(name, "set");
    if (bad) return refuse(bad);
    const r = resolveValue(name, value, hostEnv);
    if (typeof r === "string") return refuse(r);
    if (r.value === undefined) continue;
    const badValue = checkValue(name, r.value, "set");
    if (badValue) return refuse(badValue);
    env[name] = r.value;
  }

  const bad = checkLiterals(input.sessionEnv, "env");
  if (bad) return { ok: false, error: bad };
  for (const [name, value] of Object.entries(input.sessionEnv ?? {})) if (value !== undefined) env[name] = value;
  return { ok: true, env: plain(env) };
}

/**
 * R-ENV-4 for literal variables (`session/open`'s `env`, an MCP server's `env`): the
 * `env_refused` error (stage spawn) for the first bad name or value, or null. `where`
 * prefixes the reason (`env`, `options.mcpServers[0].env`).
 */
export function checkLiterals(literals: EnvLiterals | undefined, where: string): A4aaError | null {
  for (const [name, value] of Object.entries(literals ?? {})) {
    if (value === undefined) continue;
    const bad = checkName(name, where) ?? checkValue(name, value, where);
    if (bad) return errors.envRefused("spawn", bad);
  }
  return null;
}

/** A plain object with exactly these own properties (defined, so `__proto__` is one too). */
function plain(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * The literal values of a host's spec (`set` strings) and an open's `env`, as `NAME → value`:
 * what R-REC-1 keeps out of transcripts and logs.
 */
export function envLiterals(input: Pick<EnvInput, "policy" | "sessionEnv">): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(input.policy.set ?? {})) if (typeof value === "string") out.push([name, value]);
  for (const [name, value] of Object.entries(input.sessionEnv ?? {})) if (typeof value === "string") out.push([name, value]);
  return out;
}

/**
 * R-REC-1: the secrets an open (or a prewarm) hands its agent. A host's own `spec`: every
 * `set` string (the host gave them all). A catalog `agent`: only the `set` values and
 * `credentials` the host gave — never the entry's own settings (`"true"`, a flag), which
 * are no secret and would garble every text. Then the open's `env`.
 */
export function openSecrets(open: {
  spec?: { command: { env: EnvPolicy } };
  agent?: Pick<AgentSelection, "set" | "credentials">;
  env?: EnvLiterals;
}): [string, string][] {
  const policy: EnvPolicy = open.spec
    ? open.spec.command.env
    : { policy: "sanitized", set: { ...(open.agent?.set ?? {}), ...(open.agent?.credentials ?? {}) } };
  return envLiterals({ policy, sessionEnv: open.env });
}
