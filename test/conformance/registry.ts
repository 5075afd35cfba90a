// Every requirement of a4aa.v1 the suite judges: its id, tier, source and text.
//
// Tiers (as in acp-tck):
// - mandatory: every implementation must pass; a failure makes the run fail, and a
//   mandatory requirement without a check is a failure of the suite itself.
// - capability: applies when the implementation offers the capability (a lane driver, a
//   selector). A check may report "n/a" when the implementation declines it at open with
//   unsupported_selector / invalid_params; a real failure is still reported, but does not
//   change the exit code.
// - advisory: good practice the spec asks for in prose; reported, never fatal.
//
// R-FRAME-… to R-EOF-1 are the numbered requirements of spec/a4aa.v1.md. R-CORE-… name
// unnumbered rules of the same page; R-ACP-…, R-RPC-…, R-CLI-…, R-LANE-… come from
// spec/lanes.md. Texts are condensed from those pages.
export type Tier = "mandatory" | "capability" | "advisory";

export interface Requirement {
  id: string;
  tier: Tier;
  source: string;
  text: string;
}

const R = (id: string, tier: Tier, source: string, text: string): Requirement => ({ id, tier, source, text });

export const REQUIREMENTS: Requirement[] = [
  // a4aa.v1.md §1 transport and framing
  R("R-FRAME-1", "mandatory", "a4aa.v1 §1", "JSON-RPC 2.0 on stdin/stdout, one UTF-8 message per \\n-terminated line; nothing but protocol messages on stdout, all logs on stderr."),
  R("R-FRAME-2", "mandatory", "a4aa.v1 §1", "A line may hold up to 64 MiB of JSON (+ optional \\r). A longer line is discarded without buffering it whole (memory bounded by the limit), answered {id: null, error: -32600, data.code frame_too_large}, logged to stderr, and the stream continues."),
  R("R-FRAME-3", "mandatory", "a4aa.v1 §1", "Invalid UTF-8 / invalid JSON is answered -32700 (id null, data.code invalid_utf8 / parse_error); valid JSON that is not JSON-RPC 2.0 gets -32600 (with its id when readable); blank lines are ignored; the stream continues."),
  R("R-FRAME-4", "mandatory", "a4aa.v1 §1", "Request ids are arbitrary JSON values (string, number, object, array, null) echoed verbatim (equal after JSON re-serialisation); only a message without an id member is a notification."),
  R("R-FRAME-5", "mandatory", "a4aa.v1 §1", "Batches are answered as JSON-RPC 2.0 says: an array of the responses, none for notifications, -32600 for []."),
  R("R-FRAME-6", "mandatory", "a4aa.v1 §1", "Every request is dispatched on its own task: a long session/prompt never delays ping, session/cancel, session/close, other sessions or session/event notifications."),
  R("R-FRAME-7", "mandatory", "a4aa.v1 §1", "Writes to stdout honour backpressure: when the host stops reading, the sidecar stops reading the agents (memory bounded); no message is dropped or reordered within a session."),
  R("R-FRAME-8", "mandatory", "a4aa.v1 §1", "A seeded fuzz of at least 100,000 frames (truncated, nested 10^5 deep, huge numbers, invalid UTF-8, lone surrogates, BOMs, CRLF, duplicate ids, oversized, valid requests interleaved) leaves the sidecar alive, answers every request exactly once, and keeps its peak memory bounded. (The suite runs 20,000 frames of the same generator; npm run test:fuzz runs 100,000.)"),
  R("R-CORE-1", "mandatory", "a4aa.v1 §2 (unnumbered)", "ping answers {protocol: \"a4aa.v1\", version}; rpc.discover answers the OpenRPC document, which declares every method of the protocol with its direction."),
  R("R-CORE-2", "mandatory", "a4aa.v1 §1 (unnumbered)", "An unknown method (or a sidecar→host method called by the host) is -32601; params that fail the schema are -32602 with data.code invalid_params and the validator's messages in data.detail."),
  R("R-CORE-3", "mandatory", "a4aa.v1 §7 (unnumbered)", "Every failure of an a4aa operation is a JSON-RPC error whose data is ErrorData {code, stage, retryable, uncertainEffect, detail?}; -32602 for invalid_params, -32001 for unknown_session, -32000 for the other adapter errors."),
  R("R-CORE-4", "mandatory", "a4aa.v1 §2/§4 (unnumbered)", "AgentSpec: unknown fields are rejected (invalid_params); a missing program is spawn_failed (stage spawn); session/open's cwd must be an existing directory; the result's sessionId is unique and never reused."),
  R("R-CORE-5", "mandatory", "a4aa.v1 §4 (unnumbered)", "maxOutputBytes bounds what the sidecar accepts from the agent's stdout; exceeding it fails the turn with output_limit and stops the agent."),
  R("R-CORE-6", "mandatory", "a4aa.v1 §2/§3 (unnumbered)", "While a turn runs, its session/event notifications stream and are all written before the prompt's response; TurnOutcome.text is the turn's message text concatenated."),
  // §2 methods
  R("R-OPEN-1", "mandatory", "a4aa.v1 §2", "A lane rejects a selector (or resume) it cannot support with unsupported_selector, stage open, before any process is spawned; a value only the agent can judge (an ACP mode/model it did not offer) is refused right after the negotiation, and the agent is shut down before the error is answered."),
  R("R-OPEN-2", "mandatory", "a4aa.v1 §2 (1.2, issue 14)", "The handshake of an acp/rpc agent is bounded: past the spec's handshakeTimeoutMs (default serve --handshake-timeout, else 60 s) session/open fails initialize_failed (stage initialize, retryable), its detail says what the agent printed, and the agent is already stopped when the error is answered."),
  R("R-PROMPT-1", "mandatory", "a4aa.v1 §2", "One turn at a time per session: a prompt while a turn is active fails with turn_in_progress (retryable). Sessions run turns concurrently."),
  R("R-PROMPT-2", "mandatory", "a4aa.v1 §2", "Once closing of the session has started, new prompts fail with session_closing."),
  R("R-CANCEL-1", "mandatory", "a4aa.v1 §2", "Only the request form of session/cancel is defined: its response is {} once cancellation has been delivered to the agent (or there was no turn), or unknown_session; the pending prompt then settles with stopReason cancelled."),
  R("R-CANCEL-2", "mandatory", "a4aa.v1 §2", "A notification-form session/cancel (no id) is ignored with a warning on stderr — never silently applied."),
  R("R-CLOSE-1", "mandatory", "a4aa.v1 §2", "session/close ends an active turn (the prompt settles cancelled, or session_closed when the agent does not acknowledge within the grace period), then cleans up the agent's whole process tree, and only then answers."),
  R("R-CLOSE-2", "mandatory", "a4aa.v1 §2", "close is idempotent: a closed, closing or never-known id answers {}; concurrent closes of one session all wait for the same cleanup."),
  R("R-CLOSE-3", "mandatory", "a4aa.v1 §2", "A cleanup failure is answered cleanup_failed and the entry is retained (a later close retries); success removes the entry. (Black-box checks see the success half; a tree that cannot be reaped cannot be produced portably from outside.)"),
  // §3
  R("R-PERM-1", "mandatory", "a4aa.v1 §3", "Permissions fail closed: an error response, a malformed result, an unknown option id, the turn being cancelled, the session closing, the host's stdin closing, or --permission-timeout elapsing all make the agent see cancelled; nothing is approved that the host did not select."),
  // §5 environment
  R("R-ENV-1", "mandatory", "a4aa.v1 §5", "The child's environment is exactly the inherited names, then set, then session/open's env; inherit names and hostEnv indirections are confined to the INHERITED_ENV allowlist, anything else is env_refused (stage spawn) before spawning."),
  R("R-ENV-2", "mandatory", "a4aa.v1 §5", "secret references are always refused (env_refused)."),
  R("R-ENV-3", "mandatory", "a4aa.v1 §5", "inheritAll is refused unless the sidecar was started with --trust-host-env."),
  R("R-ENV-4", "mandatory", "a4aa.v1 §5", "Variable names must match ^[A-Za-z_][A-Za-z0-9_]*$ and values hold no NUL (env_refused otherwise), in the policy and in session/open's env."),
  // §8 lifecycle
  R("R-SUP-1", "mandatory", "a4aa.v1 §8", "No orphan or zombie survives a close, a crash of the agent, or the sidecar's shutdown (the whole tree, including grandchildren that ignore SIGTERM or left the group)."),
  R("R-SUP-2", "mandatory", "a4aa.v1 §8", "An agent that crashes mid-turn fails that turn with agent_exited (uncertainEffect true, stderr tail in detail) and leaves the session usable only for close; other sessions are untouched."),
  R("R-SUP-3", "mandatory", "a4aa.v1 §8", "When an agent's main process exits (crash or not), whatever is still in its process group is ended right away (SIGTERM, SIGKILL after the grace), without any session/close; also for ACP terminals."),
  R("R-SUP-4", "mandatory", "a4aa.v1 §8", "When the implementation dies abruptly (SIGKILL), no agent process and nothing in an agent's group outlives it by more than 5 s — also agents that ignore stdin EOF and SIGTERM, CLI turns that trap SIGTERM, and running terminals."),
  R("R-SUP-5", "mandatory", "a4aa.v1 §8", "A descendant that left its agent's process group (setsid, a daemonizing double fork) is still ended at close, at an agent crash and at shutdown."),
  R("R-SUP-6", "mandatory", "a4aa.v1 §8 (1.2)", "session/close answers {processes: {ended, killed}}: how many processes the cleanup ended and how many needed SIGKILL; both 0 for a closed or never-known id."),
  R("R-EOF-1", "mandatory", "a4aa.v1 §8", "stdin EOF closes every session, pending turns settle (cancelled or session_closed), the sidecar exits 0 after successful cleanup; SIGTERM and SIGINT shut down the same way."),
  // §10 agents catalog (1.2)
  R("R-AGENT-1", "mandatory", "a4aa.v1 §10", "session/open takes spec or agent ({id, lane?, program?, args?, credentials?, set?, inherit?}); an agent open's result carries the resolved spec, every credential value replaced by \"<redacted>\", so the host sees exactly what runs."),
  R("R-AGENT-2", "mandatory", "a4aa.v1 §10", "An unknown catalog id is unknown_agent (stage open, the known ids in detail); a lane the entry does not offer is unsupported_selector; a program not installed is spawn_failed with the install hint; all before anything is spawned."),
  R("R-AGENT-3", "mandatory", "a4aa.v1 §10", "credentials may only name the entry's declared credential variables (else env_refused) and are set as literals; the resolved env policy is sanitized, never inheritAll."),
  R("R-AGENT-4", "mandatory", "a4aa.v1 §10", "serve --registry FILE (repeatable) adds an ACP registry document's agents (npx → npx --yes <package>@<version> <args…>, uvx likewise, binary when on PATH; env → set), listed with the file as source; a malformed file stops serve at start with a message naming the file and the field; a colliding id keeps the built-in and warns."),
  // §11 prompt content and MCP servers (1.2)
  R("R-CONTENT-1", "capability", "a4aa.v1 §11", "(1.2; n/a until the implementation offers it) Each lane passes prompt content in the agent's own form or fails the prompt with unsupported_content (stage prompt) before the turn starts; capabilities.content tells the host beforehand; files written for an agent are removed after the turn."),
  R("R-CONTENT-2", "capability", "a4aa.v1 §11", "(1.2; n/a until the implementation offers it) Image data that is not base64, a mime type not listed (png, jpeg, gif, webp), or a decoded image over 20 MiB fails with invalid_params."),
  R("R-MCP-1", "capability", "a4aa.v1 §11", "(1.2) options.mcpServers reach the agent natively on each lane (ACP session/new mcpServers, --mcp-config, config overrides, …) or are refused with unsupported_selector before spawning; capabilities.mcp = {stdio, http}."),
  R("R-MCP-2", "capability", "a4aa.v1 §11", "(1.2) An MCP server's env follows §5's name and value rules (else env_refused); it gets those literals and nothing of the sidecar's environment."),
  // §12 recording and replay (1.2)
  R("R-REC-2", "mandatory", "a4aa.v1 §12", "A transcript is created with mode 0600 and written line by line, so a sidecar that dies leaves every line written before parseable."),
  R("R-REPLAY-1", "mandatory", "a4aa.v1 §12", "a4aa replay FILE plays a transcript's agent side on its own stdio; opened through a lane as its program it gives the host the same sequence of event types and texts as the recorded session, with no model and no network; a differing prompt fails agent_failed (--strict) or gets the next recorded turn."),
  // §13 shared agent processes (1.2)
  R("R-SHARE-1", "capability", "a4aa.v1 §13", "(1.2; n/a until the implementation offers it) On a shared process (AcpAgentSpec/RpcAgentSpec share) each session's events, permissions, fs/* confinement, terminals, cancel and close stay its own."),
  R("R-SHARE-2", "capability", "a4aa.v1 §13", "(1.2; n/a until the implementation offers it) A shared process ends when its last session has closed and idleMs has passed, and at shutdown; if it crashes every session on it fails its turn with agent_exited and the next open starts a fresh process."),
  // §14 hostile input (1.2)
  R("R-HOSTILE-1", "mandatory", "a4aa.v1 §14", "JSON nested to any depth, from the host or from an agent, is answered or mapped with a typed error (host: parse_error/invalid_request for that line; agent: agent_protocol_error or a raw event), never a crash; the stream goes on."),
  R("R-HOSTILE-2", "mandatory", "a4aa.v1 §14", "What an agent can make the sidecar hold is bounded and stated: TurnOutcome.text (cut with a marker, events still flow), stderr events, fs/read_text_file results, terminal output (outputByteLimit validated); peak memory stays under the bounds."),
  R("R-HOSTILE-3", "mandatory", "a4aa.v1 §14", "fs/* confinement holds while the agent swaps directories and symlinks concurrently; FIFOs, devices and sockets are refused; one session's file work never stalls another's."),
  R("R-HOSTILE-4", "mandatory", "a4aa.v1 §14", "A fault caused by one session's input fails that session only; a write error on the host channel is logged and shuts the sidecar down as stdin EOF does, never a live sidecar that answers nothing."),
  R("R-HOSTILE-5", "mandatory", "a4aa.v1 §14", "On the acp and rpc lanes, stdout EOF of the agent ends its turn with agent_exited and stops the agent."),
  // §15–§17 (1.3), capability tier. R-REMOTE-1…9 are judged over a WebSocket (checks/remote.ts;
  // n/a when the implementation does not listen); R-REMOTE-10 is the clients' (their own
  // tests); R-BUDGET-1, R-USAGE-1 and R-OTEL-2 are judged with the fake ACP agent
  // (checks/cost.ts); R-CUSTODY-1, R-SANDBOX-*, R-OTEL-1/3 are n/a until a check covers them
  // (a4aa's own tests cover custody and OTLP export: test/real/custody, test/integration/otel).
  R("R-REMOTE-1", "capability", "a4aa.v1 §15", "(1.3) serve --listen ws://…|wss://…|unix:… (repeatable): every connection is a host channel speaking the whole of a4aa.v1 with §1's limits and errors; with --listen and no --stdio, stdin is not read."),
  R("R-REMOTE-2", "capability", "a4aa.v1 §15", "(1.3) A listener beyond loopback or a unix socket requires --auth-token-file; an upgrade without a matching bearer token is 401, a foreign Origin 403; the token's name is the tenant; tokens appear in no log, transcript or metric."),
  R("R-REMOTE-3", "capability", "a4aa.v1 §15", "(1.3) Sessions belong to the sidecar and their tenant: a connection that ends detaches them (turns go on, permissions wait then fail closed); --detach-ttl closes abandoned sessions; another tenant's id is unknown_session."),
  R("R-REMOTE-4", "capability", "a4aa.v1 §15", "(1.3) session/attach {sessionId, afterSeq?} replays every journaled event with seq > afterSeq, in order and before any live event (exactly once), re-sends pending permission requests; too old an afterSeq fails history_truncated; session/detach; sessions/list."),
  R("R-REMOTE-5", "capability", "a4aa.v1 §15", "(1.3) Several connections on one session: events to each, permission/request to each, the first valid answer decides, the others get permission/settled."),
  R("R-REMOTE-6", "capability", "a4aa.v1 §15", "(1.3) operationId on session/open and session/prompt: a repeat within 10 minutes from the same tenant gets the first result; the same id with other params fails operation_conflict."),
  R("R-REMOTE-7", "capability", "a4aa.v1 §15", "(1.3) A connection past its outbound bound is closed 1013 slow_consumer and its sessions detach; pings every 15 s, no pong for 30 s closes it."),
  R("R-REMOTE-8", "capability", "a4aa.v1 §15", "(1.3) ws listeners answer GET /healthz, /readyz (503 while draining or at capacity) and /metrics (Prometheus text, behind the auth unless --metrics-public); other paths 404."),
  R("R-REMOTE-9", "capability", "a4aa.v1 §15", "(1.3) SIGTERM on a listening sidecar drains (readyz 503, opens fail draining, turns finish within --drain-timeout, then shutdown); a second signal closes at once; --max-sessions makes further opens at_capacity."),
  R("R-REMOTE-10", "capability", "a4aa.v1 §15", "(1.3) The Go, Python and TypeScript clients connect to a URL with a token, reconnect with backoff, re-attach with the last delivered seq and re-send requests carrying an operationId: no gap, no duplicate."),
  R("R-CUSTODY-1", "capability", "a4aa.v1 §16", "(1.3) options.custody \"proxy\": the agent gets a loopback proxy URL with a per-session token and a placeholder key; the proxy adds the real credential; 403 without the session's token; streaming passes through unbuffered."),
  R("R-SANDBOX-1", "capability", "a4aa.v1 §16", "(1.3) options.sandbox runs the agent, its terminals and MCP servers in an isolation the machine provides; capabilities.sandbox says what holds; what the machine cannot give fails sandbox_unavailable before anything is spawned."),
  R("R-SANDBOX-2", "capability", "a4aa.v1 §16", "(1.3) A hostile agent inside {filesystem: cwd, network: model} with custody reads no credential and nothing outside its cwd but system files, writes nowhere else, reaches only the proxy, and cannot signal or inspect the sidecar or other sessions."),
  R("R-OTEL-1", "capability", "a4aa.v1 §17", "(1.3) With OTLP configured, invoke_agent spans per turn, execute_tool spans per tool call, open and permission-wait spans, GenAI attributes; without configuration no telemetry module is loaded."),
  R("R-OTEL-2", "capability", "a4aa.v1 §17", "(1.3) session/prompt takes traceparent/tracestate; the turn's span is its child and the context reaches the agent in its own form where one exists."),
  R("R-OTEL-3", "capability", "a4aa.v1 §17", "(1.3) No credential, token or redacted value in any span, attribute, metric or log; prompt and reply texts only with --otel-content."),
  R("R-USAGE-1", "capability", "a4aa.v1 §17", "(1.3) Every lane reports usage in the one shape with what the agent gives; a model API's refusal for rate, quota or load fails the turn rate_limited, quota_exhausted or overloaded with retryAfterMs/resetAt when known."),
  R("R-BUDGET-1", "capability", "a4aa.v1 §17", "(1.3) options.budget {maxTurnMs?, maxTokens?, maxCostUsd?}: a turn past one is cancelled and fails budget_exceeded; a spent session refuses further prompts."),
  R("R-SEQ-1", "mandatory", "a4aa.v1 §12", "Every session/event carries seq: per session, from 1, no gaps, in the order sent; session/history returns the journal by seq (protocol 1.2)."),
  R("R-REC-1", "mandatory", "a4aa.v1 §12", "With --record DIR, no env literal of the spec's set or the open's env reaches a transcript or a log line (protocol 1.2)."),
  R("R-LOG-1", "advisory", "a4aa.v1 §9", "Logs go to stderr only, one line each, with the session id where there is one (--log-level debug)."),
  // lanes.md
  R("R-LANE-1", "mandatory", "lanes.md (general)", "Every lane drains the agent's stderr and forwards each line as a stderr event while a turn runs."),
  R("R-ACP-1", "mandatory", "lanes.md §1", "ACP open: initialize (protocol 1) and session/new; the result carries capabilities.lane acp, the agent's session id as nativeSessionId, agentInfo and sessionState from the negotiation; a non-1 protocol is initialize_failed, an auth error auth_required, an agent dying in the handshake spawn_failed — with nothing left running."),
  R("R-ACP-2", "mandatory", "lanes.md §1", "ACP updates map to AgentEvents (agent_message_chunk → messageChunk, usage_update → usage, …); whatever cannot be mapped (unknown updates, non-JSON lines) is sent as raw — nothing is lost; stop reasons map (max_tokens → maxTokens)."),
  R("R-ACP-3", "mandatory", "lanes.md §1", "session/request_permission is relayed as permission/request (toolCall flattened, kind from the earlier tool_call, option kinds mapped, original params as raw); the host's choice reaches the agent and is reported as permissionResolved (decidedBy host)."),
  R("R-ACP-4", "mandatory", "lanes.md §1", "Permission presets decide without the host where they apply (readOnly rejects execute, bypass allows, acceptEdits allows edits) and never pick an \"always\" option; decisions are reported as permissionResolved (decidedBy policy)."),
  R("R-ACP-5", "capability", "lanes.md §1", "resume uses session/load when the agent offers it, and replayed history is forwarded as session/events before the open response; an agent without loadSession makes resume unsupported_selector."),
  R("R-ACP-6", "mandatory", "lanes.md §1", "Updates the agent sends before answering session/new are forwarded under the sidecar's session id before the open response."),
  R("R-RPC-1", "mandatory", "lanes.md §2", "codexAppServer: initialize/initialized then thread/start; nativeSessionId is the thread id; turn/start streams item/agentMessage/delta as messageChunk; turn/completed completed → endTurn, failed → agent_failed with the turn's message."),
  R("R-RPC-2", "mandatory", "lanes.md §2", "codexAppServer cancel sends turn/interrupt and the turn settles cancelled; the session goes on."),
  R("R-RPC-3", "mandatory", "lanes.md §2", "codexAppServer approvals become permission/request with the offered decisions as options (accept → allowOnce, acceptForSession → allowAlways, decline → rejectOnce); the host's choice goes back; any fail-closed case answers decline."),
  R("R-CLI-1", "mandatory", "lanes.md §3", "cli generic driver: the program runs with the prompt as its last argument, its stdout becomes messageChunks and its exit 0 ends the turn (endTurn); a non-zero exit is agent_exited with the stderr tail; resume and selectors it cannot map are unsupported_selector."),
  R("R-CLI-2", "capability", "lanes.md §3", "cli codex driver: `codex exec --json` streams map (thread.started → nativeSessionId via sessionInfo, agent_message → messageChunk, turn.completed usage → usage), turn.failed is agent_failed."),
  R("R-CLI-3", "mandatory", "lanes.md §3", "cli cancel ends the turn's process group (SIGTERM, then SIGKILL after the grace) and the turn settles cancelled."),
];

export const REQUIREMENT_IDS = new Set(REQUIREMENTS.map((r) => r.id));

/** The requirement ids a check name or description mentions. */
export function idsIn(text: string): string[] {
  return [...new Set(text.match(/R-[A-Z]+-\d+/g) ?? [])];
}
