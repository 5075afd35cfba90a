// `a4aa run`'s command line: flags → what to open and how to show it.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OPENRPC_DOCUMENT_TEXT } from "../../../generated/ts/openrpc.js";
import type { AgentSelection, AgentSpec, ContentBlock, Effort, Lane, PermissionPreset, SessionOptions } from "../../../generated/ts/types.js";
import { UsageError, flagValue, parseArgs } from "../args.js";
import { AttachError, attachment, describeAttachment } from "./attachments.js";
import { McpConfigError, readMcpConfig } from "./mcp-config.js";
import type { SidecarPlace } from "./session.js";

export const RUN_HELP = `Usage: a4aa run [--agent ID [--lane L] | --spec FILE|JSON] [--permission P] [--model M]
                [--mode M] [--effort E] [--cwd DIR] [--resume ID] [--env NAME[=VALUE]]…
                [--attach FILE]… [--mcp-config FILE|JSON]… [--budget LIMITS] [--record DIR] [--json] [--no-color]
                [--connect URL [--token-file FILE] [--session ID]] [PROMPT…]

A terminal client for any agent a4aa drives, through a real 'a4aa serve'. With PROMPT (or a
prompt piped on stdin) it runs one turn and exits; without one, on a terminal, it opens an
interactive session. Without --agent or --spec it runs the bundled example agent (offline).

  --agent ID          an agent of the sidecar's catalog ('a4aa agents' lists them)
  --lane L            with --agent: which of its lanes (acp, rpc, cli)
  --spec FILE|JSON    an AgentSpec (a file, or the JSON itself) for an agent not in the catalog
  --permission P      who decides permissions: ask (you, the default on a terminal),
                      acceptEdits, readOnly or bypass
  --model M, --mode M, --effort E
                      the session's model, mode and reasoning effort
  --cwd DIR           the agent's working directory (default: here)
  --resume ID         continue the agent's own session ID (printed when a session ends)
  --env NAME[=VALUE]  a variable for the agent (repeatable); NAME alone takes its value
                      from this shell (kept out of 'ps'). A catalog agent's declared
                      credential variables (its API key, its base URL) are passed from this
                      shell without --env ('a4aa agents' lists them)
  --attach FILE       send FILE with the (first) prompt (repeatable): a png, jpeg, gif or
                      webp image, or a text file's contents
  --mcp-config F|JSON MCP servers for the agent (repeatable): [{"name", "command", …}] or
                      the {"mcpServers": {NAME: {…}}} form of .mcp.json files
  --budget LIMITS     the session's budget, e.g. maxTurnMs=60000,maxTokens=200000,maxCostUsd=1.5:
                      a turn past one is cancelled (budget_exceeded); the usage line shows
                      what is spent
  --record DIR        write the session's transcript to DIR (secrets redacted) for 'a4aa replay'
  --connect URL       use the sidecar at URL (ws:// or wss://, 'a4aa serve --listen') instead
                      of starting one; the token from --token-file or A4AA_TOKEN. --cwd is
                      then a folder on the sidecar's machine. A lost connection is
                      reconnected and nothing of the session is missed
  --token-file FILE   with --connect: a file holding the bearer token (the TOKEN part of
                      one NAME:TOKEN line of the sidecar's --auth-token-file)
  --session ID        with --connect: attach to that running session (the conversation so
                      far is shown first) instead of opening one; leaving detaches and the
                      session goes on. An unknown ID lists the sessions there
  --json              print the a4aa.v1 events as NDJSON on stdout, the outcome last
  --no-color          no colours (also: the NO_COLOR variable)

In a session: Ctrl-C cancels the running turn, a second Ctrl-C or Ctrl-D at the prompt
ends the session. Commands: /attach FILE, /mode [ID], /model [ID], /cancel, /detach
(--connect: leave the session running), /exit, /help.
Without a terminal nobody can be asked: permission requests are refused unless
--permission decides them.
Exit status: 0 the turn ended normally, 130 cancelled, 1 an error (on stderr), 2 usage.
`;

/** What /help says in an interactive session. */
export const COMMANDS_HELP = [
  "/attach FILE  send FILE (an image, or a text file's contents) with the next prompt",
  "/mode [ID]    show the agent's modes, or switch to ID",
  "/model [ID]   show the models, or use ID for the next turns",
  "/cancel       cancel the running turn (type it while the turn runs; Ctrl-C does the same)",
  "/exit         end the session (also Ctrl-D at the prompt; an attached one is left running)",
  "/detach       with --connect: leave the session running and exit",
  "/help         this list",
  "Any other /command goes to the agent as a prompt.",
].join("\n");

/** What `session/open` is asked for: a spec, or a catalog agent by id. */
export type AgentChoice = { spec: AgentSpec } | { agent: AgentSelection };

export interface RunOptions {
  target: AgentChoice;
  label: string;
  cwd: string;
  resume?: string;
  options: SessionOptions;
  env: Record<string, string>;
  json: boolean;
  noColor: boolean;
  /** The prompt from the command line ("" when none). */
  prompt: string;
  /** --record DIR: the sidecar writes the session's transcript there (a4aa replay plays it). */
  record?: string;
  /** --attach: content sent with the first prompt, and how to name each to the person. */
  attachments: { block: ContentBlock; label: string }[];
  /** --connect: the sidecar's URL and token, instead of a child sidecar. */
  connect?: { url: string; token?: string };
  /** --session: the running session to attach to (with --connect). */
  session?: string;
}

const HELP_CMD = "a4aa run --help";

/** The values a schema enum allows: the protocol's facts stay in the schema. */
function schemaEnum(name: string): string[] {
  const doc = JSON.parse(OPENRPC_DOCUMENT_TEXT) as { components: { schemas: Record<string, { enum?: string[] }> } };
  return doc.components.schemas[name]?.enum ?? [];
}

function oneOf<T extends string>(flag: string, value: string | undefined, schema: string): T | undefined {
  if (value === undefined) return undefined;
  const allowed = schemaEnum(schema);
  if (!allowed.includes(value)) throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`, HELP_CMD);
  return value as T;
}

/** The bundled example ACP agent, run by this Node (works offline, on a fresh machine). */
export function exampleAgentSpec(args: string[] = []): AgentSpec {
  const agent = fileURLToPath(new URL("../../examples/example-agent.js", import.meta.url));
  return {
    id: "example",
    lane: "acp",
    command: { program: process.execPath, args: [agent, ...args], env: { policy: "sanitized", inherit: ["PATH", "HOME", "TMPDIR"] } },
  };
}

function readSpec(value: string): AgentSpec {
  const text = value.trimStart().startsWith("{") ? value : existsSync(value) ? readFileSync(value, "utf8") : undefined;
  if (text === undefined) throw new UsageError(`--spec ${JSON.stringify(value)} is neither JSON nor a file`, HELP_CMD);
  let spec: unknown;
  try {
    spec = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--spec is not valid JSON: ${(e as Error).message}`, HELP_CMD);
  }
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) throw new UsageError("--spec must be a JSON object (an AgentSpec)", HELP_CMD);
  return spec as AgentSpec;
}

export function parseRunArgs(argv: string[]): RunOptions | "help" {
  const { flags, positionals } = parseArgs(
    argv,
    {
      agent: { value: true },
      lane: { value: true },
      spec: { value: true },
      permission: { value: true },
      model: { value: true },
      mode: { value: true },
      effort: { value: true },
      cwd: { value: true },
      resume: { value: true },
      env: { value: true, multiple: true },
      budget: { value: true },
      record: { value: true },
      attach: { value: true, multiple: true },
      "mcp-config": { value: true, multiple: true },
      json: {},
      "no-color": {},
      connect: { value: true },
      "token-file": { value: true },
      session: { value: true },
    },
    HELP_CMD,
  );
  if (flags.help) return "help";
  const agent = flagValue(flags, "agent");
  const specText = flagValue(flags, "spec");
  const lane = oneOf<Lane>("lane", flagValue(flags, "lane"), "Lane");
  if (agent !== undefined && specText !== undefined) throw new UsageError("give --agent or --spec, not both", HELP_CMD);
  if (lane && agent === undefined) throw new UsageError("--lane goes with --agent (a --spec names its own lane)", HELP_CMD);
  let target: AgentChoice;
  let label: string;
  if (agent !== undefined) {
    target = { agent: { id: agent, ...(lane ? { lane } : {}) } };
    label = agent;
  } else if (specText !== undefined) {
    const spec = readSpec(specText);
    target = { spec };
    label = typeof spec.id === "string" ? spec.id : "agent";
  } else {
    target = { spec: exampleAgentSpec() };
    label = "example agent";
  }
  const options: SessionOptions = {};
  const permission = oneOf<PermissionPreset>("permission", flagValue(flags, "permission"), "PermissionPreset");
  const effort = oneOf<Effort>("effort", flagValue(flags, "effort"), "Effort");
  const model = flagValue(flags, "model");
  const mode = flagValue(flags, "mode");
  if (permission) options.permission = permission;
  if (effort) options.effort = effort;
  if (model) options.model = model;
  if (mode) options.mode = mode;
  const budget = flagValue(flags, "budget");
  if (budget !== undefined) options.budget = parseBudget(budget);
  const cwd = path.resolve(flagValue(flags, "cwd") ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${JSON.stringify(cwd)} is not a directory`, HELP_CMD);
  const env: Record<string, string> = {};
  for (const kv of (flags.env as string[] | undefined) ?? []) {
    const eq = kv.indexOf("=");
    if (eq === 0 || (eq < 0 && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(kv))) throw new UsageError(`--env wants NAME=VALUE or NAME (its value from this shell), not ${JSON.stringify(kv)}`, HELP_CMD);
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
    else {
      // --env NAME: the value stays out of argv (and `ps`), read from this shell's environment.
      const v = process.env[kv];
      if (v === undefined) throw new UsageError(`--env ${kv}: ${kv} is not set in this shell; export ${kv}=… first, or give --env ${kv}=VALUE`, HELP_CMD);
      env[kv] = v;
    }
  }
  const mcpServers = ((flags["mcp-config"] as string[] | undefined) ?? []).flatMap((v) => {
    try {
      return readMcpConfig(v);
    } catch (e) {
      if (e instanceof McpConfigError) throw new UsageError(e.message, HELP_CMD);
      throw e;
    }
  });
  if (mcpServers.length) options.mcpServers = mcpServers;
  const attachments = ((flags.attach as string[] | undefined) ?? []).map((file) => {
    try {
      const block = attachment(file, process.cwd());
      return { block, label: describeAttachment(file, block) };
    } catch (e) {
      if (e instanceof AttachError) throw new UsageError(`--attach: ${e.message}`, HELP_CMD);
      throw e;
    }
  });
  const remote = connectOptions(flags);
  if (remote.session && (agent !== undefined || specText !== undefined || flagValue(flags, "resume") !== undefined || Object.keys(options).length || Object.keys(env).length)) {
    throw new UsageError("--session attaches to a session that is already open: --agent, --spec, --resume, --env and the session options go with opening one", HELP_CMD);
  }
  if (remote.connect && flagValue(flags, "record") !== undefined) {
    throw new UsageError("--record is for the sidecar a4aa run starts; the sidecar at --connect records with its own 'a4aa serve --record DIR'", HELP_CMD);
  }
  return {
    ...remote,
    target,
    label,
    cwd,
    attachments,
    resume: flagValue(flags, "resume"),
    options,
    env,
    json: flags.json === true,
    noColor: flags["no-color"] === true,
    prompt: positionals.join(" "),
    ...(flagValue(flags, "record") !== undefined ? { record: path.resolve(flagValue(flags, "record")!) } : {}),
  };
}

/** `--budget maxTurnMs=60000,maxCostUsd=1.5`: the names and bounds are the schema's Budget. */
export function parseBudget(text: string): NonNullable<SessionOptions["budget"]> {
  const doc = JSON.parse(OPENRPC_DOCUMENT_TEXT) as { components: { schemas: Record<string, { properties?: Record<string, { type?: string; minimum?: number }> }> } };
  const props = doc.components.schemas.Budget?.properties ?? {};
  const out: Record<string, number> = {};
  for (const part of text.split(",").filter(Boolean)) {
    const [name, value, ...extra] = part.split("=");
    const p = props[name!.trim()];
    const n = Number(value);
    if (!p) throw new UsageError(`--budget: ${JSON.stringify(name)} is not a budget; use ${Object.keys(props).join(", ")}`, HELP_CMD);
    if (extra.length || value === undefined || !Number.isFinite(n) || (p.type === "integer" && !Number.isInteger(n)) || n < (p.minimum ?? 0)) {
      throw new UsageError(`--budget: ${name}=${value ?? ""} must be a ${p.type === "integer" ? "whole " : ""}number of at least ${p.minimum ?? 0}`, HELP_CMD);
    }
    out[name!.trim()] = n;
  }
  if (!Object.keys(out).length) throw new UsageError("--budget wants NAME=VALUE[,NAME=VALUE]…", HELP_CMD);
  return out;
}

/** Where the sidecar is: --connect's, or a child started with `--record DIR` when asked. */
export function sidecarPlace(o: RunOptions): SidecarPlace {
  return o.connect ? { connect: o.connect } : { serveArgs: o.record ? ["--record", o.record] : [] };
}

/** `--connect URL [--token-file FILE] [--session ID]`, checked. */
function connectOptions(flags: Record<string, string | true | string[]>): Pick<RunOptions, "connect" | "session"> {
  const url = flagValue(flags, "connect");
  const tokenFile = flagValue(flags, "token-file");
  const session = flagValue(flags, "session");
  if (url === undefined) {
    if (tokenFile !== undefined || session !== undefined) throw new UsageError(`--${tokenFile !== undefined ? "token-file" : "session"} goes with --connect URL`, HELP_CMD);
    return {};
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`--connect wants a ws:// or wss:// URL (as 'a4aa serve --listen' prints it), not ${JSON.stringify(url)}`, HELP_CMD);
  }
  if (u.protocol !== "ws:" && u.protocol !== "wss:") throw new UsageError(`--connect wants a ws:// or wss:// URL, not ${u.protocol}// (a unix socket speaks NDJSON: use a host client)`, HELP_CMD);
  let token = process.env.A4AA_TOKEN || undefined;
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(tokenFile, "utf8");
    } catch (e) {
      throw new UsageError(`--token-file ${JSON.stringify(tokenFile)}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`, HELP_CMD);
    }
    token = text.split("\n").map((l) => l.trim()).find((l) => l && !l.startsWith("#"));
    if (!token) throw new UsageError(`--token-file ${JSON.stringify(tokenFile)} holds no token (one line: the token alone)`, HELP_CMD);
  }
  return { connect: { url, ...(token ? { token } : {}) }, ...(session !== undefined ? { session } : {}) };
}
