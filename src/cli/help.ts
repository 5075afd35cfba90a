// The text of `a4aa --help` and `a4aa serve --help`.
export const MAIN_HELP = `a4aa — Adapter-For-All-Agents

Usage:
  a4aa serve [options]       run the sidecar: JSON-RPC 2.0 (a4aa.v1) as NDJSON on stdin/stdout
  a4aa run [PROMPT…]         talk to an agent in this terminal (default: the bundled example
                             agent; 'a4aa run --help' for --agent, --spec and the rest)
  a4aa demo                  drive the bundled example agent through a real 'a4aa serve' and
                             print what happens (offline, no account needed)
  a4aa replay FILE [--instant] [--strict]
                             an agent program that plays a recorded transcript's agent
                             side (use it as a spec's command; no model, no network)
  a4aa schema                print the a4aa.v1 OpenRPC document
  a4aa schema diff OLD NEW   judge the changes between two versions of the document
  a4aa agents [--json] [--probe]
                             the agents catalog, and what of it is installed here
  a4aa doctor                check the agents here: one fix per problem
  a4aa --version             print the version
  a4aa --help                print this help

A host (IDE, orchestrator, CI bot) spawns 'a4aa serve', sends session/open with an
AgentSpec (an ACP agent, 'codex app-server', or a CLI such as 'claude -p'), then
session/prompt, and reads session/event notifications until the prompt's answer.
See 'a4aa serve --help' and the README.
`;

export const SERVE_HELP = `Usage: a4aa serve [--trust-host-env] [--permission-timeout MS] [--cancel-grace MS]
                  [--handshake-timeout MS] [--max-agent-processes N] [--max-sessions N]
                  [--max-terminals N] [--terminal-output-budget BYTES]
                  [--log-level LEVEL] [--registry FILE]... [--record DIR]
                  [--otel-endpoint URL] [--otel-content] [--sandbox-model-endpoint HOST:PORT]
                  [--listen ADDR]... [--stdio] [--auth-token-file FILE] [--allow-origin ORIGIN]...
                  [--tls-cert FILE --tls-key FILE] [--detach-ttl MS] [--max-outbound BYTES]
                  [--ping-interval MS] [--pong-timeout MS] [--metrics-public] [--drain-timeout MS]

Runs the sidecar. It reads JSON-RPC 2.0 requests, one per line, on stdin and writes
responses and notifications, one per line, on stdout. Logs go to stderr only.
Closing stdin (or SIGTERM / SIGINT) closes every session, ends every agent process
tree, and exits 0 (1 if an agent's processes could not be cleaned up).

Options:
  --trust-host-env          allow specs with env policy "inheritAll": the agent then gets
                            the sidecar's whole environment, credentials included. Only
                            for launchers whose callers are trusted.
  --permission-timeout MS   answer a permission request 'cancelled' when the host has not
                            answered within MS milliseconds (default: wait for the host)
  --cancel-grace MS         after a cancel reaches the agent, how long it has to end the turn
                            before the turn is reported cancelled anyway (default 10000)
  --handshake-timeout MS    how long an agent (any lane) has to complete its handshake before
                            session/open fails initialize_failed and the agent is stopped
                            (default 60000; a spec's handshakeTimeoutMs overrides it)
  --max-agent-processes N   how many agent process trees (agents, shared and prewarmed ones,
                            CLI turns, terminals) may run at once; beyond it opens, terminals
                            and agents/prewarm fail at_capacity, retryable (default 256)
  --max-sessions N          how many sessions may be held at once; beyond it session/open
                            fails at_capacity, retryable, and /readyz answers 503 (no default)
  --max-terminals N         how many terminals one ACP session may hold at once; the agent's
                            terminal/create beyond it gets an error it sees (default 16)
  --terminal-output-budget BYTES
                            what the outputByteLimits of all sessions' terminals may add up
                            to (default 268435456, 256 MiB; at least 1048576)
  --log-level LEVEL         error, warn (default), info or debug
  --registry FILE           add the agents of an ACP registry document (registry.json
                            format) to the catalog; repeatable. A malformed file stops serve,
                            naming the file and the field
  --record DIR              write one transcript per session, DIR/<sessionId>.jsonl (mode
                            0600, secrets redacted): both sides of the sidecar, for
                            reading or for 'a4aa replay'
  --otel-endpoint URL       export traces over OTLP/HTTP (JSON) to URL/v1/traces: one
                            invoke_agent span per turn, execute_tool per tool call, opens
                            and permission waits (GenAI conventions). Also from
                            OTEL_EXPORTER_OTLP_ENDPOINT / _TRACES_ENDPOINT / _HEADERS
  --otel-content            with export: put prompt and reply texts into spans (redacted)
  --sandbox-model-endpoint HOST:PORT
                            a loopback address (e.g. a local model gateway) that sessions
                            opened with options.sandbox network "model" and no custody may
                            reach, and nothing else (with custody: the custody proxy)
  --listen ADDR             also serve hosts on ws://HOST:PORT[/PATH], wss://HOST:PORT[/PATH]
                            or unix:PATH (repeatable); without --stdio, stdin is not read
  --stdio                   with --listen: serve stdin/stdout too (its EOF still ends all)
  --auth-token-file FILE    NAME:TOKEN lines; every WebSocket upgrade needs
                            "Authorization: Bearer TOKEN" (else 401); NAME is the tenant.
                            Required for a listener other machines can reach
  --allow-origin ORIGIN     an upgrade with another Origin header is refused 403 (repeatable)
  --tls-cert FILE, --tls-key FILE   certificate and key of a wss:// listener
  --detach-ttl MS           close a session no connection is attached to for MS (default 300000)
  --max-outbound BYTES      close a connection this far behind for over 1 s (1013
                            slow_consumer; default 16777216); its sessions detach
  --ping-interval MS, --pong-timeout MS   WebSocket heartbeat (default 15000, 30000)
  --metrics-public          ws/wss listeners answer GET /metrics without the bearer token
                            (/healthz and /readyz never need one)
  --drain-timeout MS        on SIGTERM a listening sidecar drains: /readyz 503, opens fail
                            draining, turns in flight may finish for MS (default 30000),
                            then every session closes; a second signal closes at once
  --help                    print this help
`;
