// R-CUSTODY-1 with Codex (see case.ts): its base URL goes on the command line as `-c` config
// overrides naming a4aa's model provider (they win over the provider its config.toml names),
// so its key is the session's token. codex app-server (rpc lane) and codex exec (cli lane) run
// with bypass: an approved command in codex's own sandbox fails about one run in two on these
// machines ("bwrap: execvp codex-linux-sandbox: No such file or directory"), custody or not.
import { custodySuite, reply } from "./case.js";

const upstream = (mockUrl: string) => `${mockUrl}/v1`;
custodySuite({ agent: "codex", id: "codex", lane: "rpc", upstream, options: { permission: "bypass" } });
custodySuite({ agent: "codex", id: "codex", lane: "cli", upstream, options: { permission: "bypass" } });
// codex-acp: MODEL_PROVIDER and a CODEX_CONFIG defining it, which it passes to its codex as
// `-c` overrides (so again no token in the URL); its read-only mode asks for an escalated
// command, which the host allows once.
custodySuite({
  agent: "codex-acp",
  id: "codex-acp",
  upstream,
  options: { permission: "ask", mode: "read-only" },
  toolCall: (cmd) => reply.tool("exec_command", { cmd, sandbox_permissions: "require_escalated", justification: "Write custody.txt" }),
});
