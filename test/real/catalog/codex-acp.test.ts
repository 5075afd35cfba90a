// codex-acp (acp lane; asks in its read-only mode for an escalated command) by catalog id through a real `a4aa serve` (see rig.ts).
import { realCatalogSuite, reply } from "./rig.js";

realCatalogSuite({
  agent: "codex-acp",
  id: "codex-acp",
  lane: "acp",
  options: () => ({ mode: "read-only" }),
  toolCall: (cmd) => reply.tool("exec_command", { cmd, sandbox_permissions: "require_escalated", justification: "Write allowed.txt" }),
});
