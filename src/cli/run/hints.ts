// A failed call in words for a person, with the fix when a4aa knows one, keyed by the a4aa
// error code (`error.data.code`) the sidecar sent.
import { A4aaError, type AgentCredential } from "../../../clients/ts/index.js";
import { UnknownAgentId, UnknownSession } from "./session.js";
import type { ErrorCode } from "../../../generated/ts/types.js";

// `unknown_agent` comes with the agents catalog (protocol 1.2).
const HINTS: Partial<Record<ErrorCode | "unknown_agent", string>> = {
  spawn_failed: "the agent's program could not be started: install it (the detail says which program), or pass --spec with its full path",
  auth_required: "the agent wants you to sign in: run the agent once on its own to log in, or set its API key variable (see 'a4aa doctor')",
  env_refused: "the spec asks for an environment a4aa will not pass: inherit only PATH, HOME, TERM, LANG and the like, and set anything else as a literal under command.env.set",
  unsupported_selector: "this agent cannot honour one of --model, --mode, --effort, --permission or --resume (the detail says which): leave it out",
  invalid_params: "the request does not fit the protocol: check --spec against the AgentSpec schema ('a4aa schema' prints it)",
  initialize_failed: "the agent started but the handshake failed: is it the right program and lane for this agent?",
  agent_exited: "the agent's process ended (its last stderr lines are above); start again, and check its install with 'a4aa doctor'",
  agent_failed: "the agent reported an error, often its model API's: check the API key, the quota and the network",
  agent_protocol_error: "the agent sent something its lane does not understand: check that its version is one a4aa was tested with ('a4aa doctor')",
  turn_in_progress: "a turn is still running: wait for it, or press Ctrl-C to cancel it",
  output_limit: "the agent sent more than the spec's maxOutputBytes: raise it in --spec, or ask for less",
  cleanup_failed: "some of the agent's processes could not be ended: look for them with 'ps' and end them",
  peer_closed: "the a4aa sidecar stopped (its log is above); start again",
  session_closed: "the session is closed; start a new one",
  unknown_agent: "run 'a4aa agents' for the agent ids this a4aa knows, or pass --spec for another agent",
};

export interface ErrorWords {
  message: string;
  code: string;
  hint?: string;
}

/** The words of a credential error in `a4aa run`'s own terms: the variables the agent's
 * catalog entry declares, which run passes from this shell. */
export function credentialHint(credentials: readonly AgentCredential[]): string | undefined {
  const names = credentials.filter((c) => c.required).map((c) => c.name);
  if (!names.length) return undefined;
  const list = names.join(" or ");
  return `set the agent's key in this shell: export ${names[0]}=… (a4aa run passes ${list} to the agent), or give --env ${names[0]}=VALUE; or sign in by running the agent once on its own and keep that HOME`;
}

/** An agent given by --spec: the variables the sidecar's hint names ("reads its credentials
 * from A, B —"), to give with --env. */
function specCredentialHint(forHosts: string): string | undefined {
  const names = /reads its credentials from ([A-Z0-9_, ]+) —/.exec(forHosts)?.[1]?.split(", ");
  if (!names?.length) return undefined;
  return `give the agent its key with --env ${names[0]} (the value from this shell) or --env ${names[0]}=VALUE (this agent reads ${names.join(", ")}); or sign in by running the agent once on its own and keep that HOME`;
}

export function describeError(err: unknown, credentials: readonly AgentCredential[] = []): ErrorWords {
  if (err instanceof UnknownAgentId) return { message: err.message, code: "unknown_agent", hint: HINTS.unknown_agent };
  if (err instanceof UnknownSession) return { message: err.message, code: "unknown_session", hint: "give --session one of the ids above, or leave --session out to open a new session there" };
  const words = describeRaw(err);
  // The program was found and started, then ended before its handshake: installing it again is not the fix.
  if (words.code === "spawn_failed" && /(exited with code|was killed by) .*(before the handshake|during its handshake)/.test(words.message)) {
    words.hint = "the agent started but ended before its handshake: its own words are above (a missing login or setting, a flag its lane needs); check the --spec or run the agent once on its own";
  }
  // --connect: the sidecar refused the token, or is not there.
  if (words.code === "peer_closed" && /HTTP 40[13]/.test(words.message)) {
    words.hint = /HTTP 403/.test(words.message)
      ? "the sidecar refused this connection's Origin: see its --allow-origin"
      : "the sidecar refused the token: give the TOKEN of one NAME:TOKEN line of its --auth-token-file with --token-file FILE or A4AA_TOKEN";
  } else if (words.code === "peer_closed" && /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|could not connect|timed out/i.test(words.message)) {
    words.hint = "nothing answered at --connect's URL: is 'a4aa serve --listen URL' running there, and is the URL the one it printed?";
  }
  if (words.code === "auth_required") {
    // The sidecar's detail ends with a hint for hosts (spec fields); a person gets run's own.
    const [said, forHosts = ""] = words.message.split("\nThe agent's environment is only");
    words.message = said!;
    words.hint = credentialHint(credentials) ?? specCredentialHint(forHosts) ?? words.hint;
  }
  return words;
}

function describeRaw(err: unknown): ErrorWords {
  if (err instanceof A4aaError) {
    const code = err.code || String(err.rpcCode);
    return { message: err.message, code, hint: HINTS[code as keyof typeof HINTS] };
  }
  const e = err as { message?: string; data?: { code?: string; detail?: string } };
  if (e && typeof e === "object" && e.data?.code) {
    return { message: `${e.message}${e.data.detail ? `: ${e.data.detail}` : ""} (${e.data.code})`, code: e.data.code, hint: HINTS[e.data.code as keyof typeof HINTS] };
  }
  return { message: err instanceof Error ? err.message : String(err), code: "" };
}
